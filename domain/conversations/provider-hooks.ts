import type { PublicRoute } from '../kernel/operation';

/**
 * The channel providers' webhooks: no API key; Twilio signs its requests, and the inbound-email relay
 * presents the workspace's secret. Audited by the webhook, not by the operation it ran: one email
 * may be a reply, a bounce or a complaint.
 */
export const SMS_HOOK: PublicRoute = {
  method: 'post',
  path: '/hooks/sms/:workspaceId',
  family: 'hooks',
  action: 'hooks.sms',
};
export const EMAIL_HOOK: PublicRoute = {
  method: 'post',
  path: '/hooks/email/:workspaceId',
  family: 'hooks',
  action: 'hooks.email',
};
