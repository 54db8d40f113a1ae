import type { DataSource } from 'typeorm';
import {
  claimMemberMail,
  settleMemberMail,
  type HandOver,
  type MailOutcome,
  type MailResult,
} from '../domain/identity';
import { NO_SMTP, type EmailProvider } from './providers/email';

export type MemberMailDeps = { db: DataSource; email?: EmailProvider; secretsKey: Buffer };

/** The address taken out of what a provider said, before it is kept in a workflow's history. */
const withoutAddress = (error: string, address: string) =>
  error.replace(new RegExp(address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), '<the member>');

/**
 * Sending a mail to a member: the hand-over claims it (a transaction of its own), opens its sealed
 * subject and text and hands it to the SMTP provider, all in this activity, so neither the address nor
 * the text (a sign-in link) is ever an activity's input or result; recording what the provider said is
 * a second activity, so a database outage after a send retries the record, never the send.
 */
export const createMemberMailActivities = (deps: MemberMailDeps) => ({
  handOverMemberMail: async (mailId: string, attempt: number): Promise<HandOver> => {
    const claim = await claimMemberMail(deps.db, mailId, attempt, deps.secretsKey);
    if (!('send' in claim)) return claim;
    if (!deps.email) return NO_SMTP;
    const mail = claim.send;
    const result = await deps.email.send({
      id: mail.id,
      mailId: mail.id,
      to: mail.to,
      fromName: mail.fromName,
      subject: mail.subject,
      text: mail.text,
      inReplyTo: null,
      unsubscribeUrl: null,
    });
    if (result.kind === 'sent') return result;
    const error = withoutAddress(result.error, mail.to);
    return result.kind === 'transient'
      ? { kind: 'transient', error, ...(result.maybeSent && { maybeSent: true }) }
      : { kind: 'permanent', error };
  },
  settleMemberMail: (mailId: string, result: MailResult, last: boolean): Promise<MailOutcome> =>
    settleMemberMail(deps.db, mailId, result, last),
});
