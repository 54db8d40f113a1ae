import type { DataSource } from 'typeorm';
import type { ClaimedMessage, Claim } from '../domain/conversations/send';
import { claimSend, settleSend } from '../domain/conversations/send';
import type { AttemptOutcome, ProviderResult } from '../domain/conversations/sending';
import { UNSUBSCRIBE_PATH, unsubscribeLinks } from '../domain/conversations/unsubscribe-links';
import type { Services } from '../domain/kernel/operation';
import type { EmailProvider } from './providers/email';
import type { SmsProvider } from './providers/sms';

export type SendDeps = {
  db: DataSource;
  services: Services;
  email?: EmailProvider;
  sms?: SmsProvider;
  /** Where the service is reached from outside, for unsubscribe links. */
  publicUrl: string;
  secretsKey: Buffer;
};

/** The email a claimed message becomes: a marketing one carries its unsubscribe link in the body too. */
export function emailOf(msg: ClaimedMessage, unsubscribeUrl: string) {
  return {
    id: msg.id,
    to: msg.to,
    fromName: msg.workspaceName,
    subject: msg.subject ?? `A message from ${msg.workspaceName}`,
    text: msg.marketing
      ? `${msg.body}\n\n--\nTo stop receiving these emails, unsubscribe: ${unsubscribeUrl}\n`
      : msg.body,
    inReplyTo: msg.in_reply_to,
    unsubscribeUrl,
  };
}

/**
 * Sending a message: claim it (a transaction of its own), hand it to its channel's provider (outside
 * any transaction), record what the provider said. Three activities, so that what the provider said
 * is kept in the workflow's history: a database outage after a send retries the record, never the send.
 */
export const createSendActivities = (deps: SendDeps) => {
  const links = unsubscribeLinks(deps.secretsKey);
  const unsubscribeUrl = (leadId: string) =>
    `${deps.publicUrl.replace(/\/$/, '')}${UNSUBSCRIBE_PATH}/${links.token(leadId)}`;
  const handOver = async (msg: ClaimedMessage): Promise<ProviderResult> => {
    if (msg.channel === 'email') {
      if (!deps.email) return { kind: 'permanent', error: 'no SMTP server is configured (SMTP_URL)' };
      return deps.email.send(emailOf(msg, unsubscribeUrl(msg.lead_id)));
    }
    if (msg.channel === 'sms' || msg.channel === 'whatsapp') {
      if (!deps.sms) return { kind: 'permanent', error: 'no SMS provider is configured (SMS_API_URL)' };
      return deps.sms.send({ to: msg.to, body: msg.body, whatsapp: msg.channel === 'whatsapp' });
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
