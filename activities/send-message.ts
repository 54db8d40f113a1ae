import type { DataSource } from 'typeorm';
import {
  type AttemptOutcome,
  type Claim,
  type ClaimedMessage,
  claimSend,
  type ProviderResult,
  bodyWithLink,
  settleSend,
  unsubscribeLinks,
} from '../domain/conversations';
import type { Services } from '../domain/kernel/operation';
import { NO_SMTP, composeEmail, type EmailProvider } from './providers/email';
import type { SmsProvider } from './providers/sms';

export type SendDeps = {
  db: DataSource;
  services: Services;
  email?: EmailProvider;
  sms?: SmsProvider;
  /** Where the service is reached from outside, for unsubscribe and page links. */
  publicUrl: string;
  secretsKey: Buffer;
};

/**
 * Sending a message: claim it (a transaction of its own), hand it to its channel's provider (outside
 * any transaction), record what the provider said. Three activities, so that what the provider said
 * is kept in the workflow's history: a database outage after a send retries the record, never the send.
 */
export const createSendActivities = (deps: SendDeps) => {
  const links = unsubscribeLinks(deps.secretsKey);
  const handOver = async (msg: ClaimedMessage): Promise<ProviderResult> => {
    if (msg.channel === 'email') {
      if (!deps.email) return NO_SMTP;
      return deps.email.send(
        composeEmail({
          ...msg,
          // The page's link is made here, inside the hand-over: it is in what leaves and nowhere else.
          body: bodyWithLink(msg, deps.secretsKey, deps.publicUrl),
          // A claim kept in a history from before mail_id names a row whose mail_id is its id.
          mailId: msg.mail_id ?? msg.id,
          fromName: msg.workspaceName,
          inReplyTo: msg.in_reply_to,
          unsubscribeUrl: links.url(deps.publicUrl, msg.lead_id, msg.to),
        }),
      );
    }
    if (msg.channel === 'sms' || msg.channel === 'whatsapp') {
      if (!deps.sms) return { kind: 'permanent', error: 'no SMS provider is configured (SMS_API_URL)' };
      const body = bodyWithLink(msg, deps.secretsKey, deps.publicUrl);
      return deps.sms.send({ to: msg.to, body, whatsapp: msg.channel === 'whatsapp' });
    }
    return { kind: 'permanent', error: `no provider sends on ${msg.channel}` };
  };
  return {
    claimMessage: (messageId: string, attempt: number): Promise<Claim> =>
      claimSend(deps.db, messageId, attempt),
    handOverMessage: handOver,
    settleMessage: (msg: ClaimedMessage, result: ProviderResult, last: boolean): Promise<AttemptOutcome> =>
      settleSend(deps.services, msg, result, last),
  };
};
