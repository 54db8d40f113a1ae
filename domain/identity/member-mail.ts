import type { DataSource } from 'typeorm';
import { Data } from '../kernel/data';
import type { MemberMailKind } from './entities';
import { memberMailIn } from './repository/member-mail';
import { seal, unseal } from './sealing';
import type { HandOver, MailOutcome, MailResult } from './workflow-contract';

/** Who member mail says it is from when it is about no workspace (a sign-in link). */
const SERVICE_NAME = 'Lead service';

/** A subject is one line of at most this many characters. */
const MAX_SUBJECT = 200;

/** A member mail taken for one hand-over: only in the activity's memory, never in a workflow's history. */
export type MemberMailToSend = { id: string; to: string; fromName: string; subject: string; text: string };

const INTERRUPTED =
  'interrupted: a hand-over of this mail was cut off, so it may or may not have left; it is not sent again, so it is never sent twice';
const UNREADABLE = 'the sealed mail does not open with SECRETS_KEY (the key changed since it was queued)';

/**
 * Queues a mail to a member (a sign-in link, an invitation, a request waiting for them) in the caller's
 * transaction: its subject and text are sealed with SECRETS_KEY, since they may hold a bearer link, and
 * its workflow starts once the change commits. Its address is read when it leaves.
 */
export async function queueMemberMail(
  data: Data,
  mail: { userId: string; workspaceId: string | null; kind: MemberMailKind; subject: string; text: string },
  secretsKey: Buffer,
): Promise<void> {
  const subject = mail.subject.replace(/\s+/g, ' ').trim().slice(0, MAX_SUBJECT);
  await memberMailIn(data).queue({
    userId: mail.userId,
    workspaceId: mail.workspaceId,
    kind: mail.kind,
    sealed: seal(JSON.stringify({ subject, text: mail.text }), secretsKey),
  });
}

/**
 * Takes a mail for one hand-over, in a transaction of its own that commits before the provider is
 * called: the row says `sending` while it is out. Answers from the record when it needs none (sent,
 * failed, its member gone). A mail found `sending` was cut off in an earlier hand-over (a killed worker,
 * a timed-out activity): it may have left, so it is failed, visibly, rather than risk sending it twice.
 */
export async function claimMemberMail(
  db: DataSource,
  mailId: string,
  attempt: number,
  secretsKey: Buffer,
): Promise<{ send: MemberMailToSend } | Extract<HandOver, { done: string }>> {
  return db.transaction(async (m) => {
    const mail = memberMailIn(new Data(m, undefined));
    const row = await mail.lock(mailId);
    if (!row) return { done: 'failed', error: 'the mail is gone (its member was deleted)' };
    if (row.status === 'sent' || row.status === 'failed') return { done: row.status };
    if (row.status === 'sending') {
      await mail.failed(row.id, INTERRUPTED);
      return { done: 'failed', error: INTERRUPTED };
    }
    const opened = row.sealed && unseal(row.sealed, secretsKey);
    if (!opened) {
      await mail.failed(row.id, UNREADABLE);
      return { done: 'failed', error: UNREADABLE };
    }
    await mail.claim(row.id, attempt);
    const { subject, text } = JSON.parse(opened) as { subject: string; text: string };
    return {
      send: { id: row.id, to: row.to, fromName: row.workspace_name ?? SERVICE_NAME, subject, text },
    };
  });
}

/**
 * Records what the provider said of a hand-over: sent (the record and the wiping of the sealed text in
 * one statement), a rung to wait for, or given up (a permanent refusal, the last rung, or a failure
 * after which it may have left).
 */
export async function settleMemberMail(
  db: DataSource,
  mailId: string,
  result: MailResult,
  lastAttempt: boolean,
): Promise<MailOutcome> {
  const mail = memberMailIn(new Data(db.manager, undefined));
  if (result.kind === 'sent') {
    await mail.sent(mailId, result.providerMessageId);
    return { outcome: 'sent' };
  }
  if (result.kind === 'transient' && !lastAttempt && !result.maybeSent) {
    await mail.retrying(mailId, result.error);
    return { outcome: 'retry' };
  }
  const error =
    result.kind === 'permanent'
      ? result.error
      : result.maybeSent
        ? `interrupted: the provider may have taken it before the failure (${result.error}); it is not sent again, so it is never sent twice`
        : `gave up after its last attempt; the last said: ${result.error}`;
  await mail.failed(mailId, error);
  return { outcome: 'failed', error };
}
