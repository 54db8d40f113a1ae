import type { DataSource } from 'typeorm';
import { operatorActor } from '../kernel/actor';
import { Data } from '../kernel/data';
import type { Services } from '../kernel/operation';
import { runOperation } from '../kernel/runner';
import { workspaceNamed } from '../identity';
import { operations as leadOperations } from '../leads';
import type { Message } from './entities';
import { blockedReason } from './outbound';
import { messagesIn } from './repository/messages';
import type { AttemptOutcome, ProviderResult } from './sending';

/** A message claimed for one hand-over to its provider. */
export type ClaimedMessage = Pick<
  Message,
  'id' | 'workspace_id' | 'lead_id' | 'channel' | 'subject' | 'body' | 'in_reply_to' | 'marketing'
> &
  // Absent in the histories of sendings claimed before messages named pages.
  Partial<Pick<Message, 'page_link'>> &
  // Absent in the histories of sendings claimed before Message-IDs were random: those rows' mail_id is their id.
  Partial<Pick<Message, 'mail_id'>> & { to: string; workspaceName: string; attempt: number };

export type Claim = { send: ClaimedMessage } | { done: AttemptOutcome };

const INTERRUPTED =
  'interrupted: the worker stopped while handing this message to the provider, so it may or may not have left; it is not sent again, so it is never sent twice';

/**
 * Takes a message for one hand-over, in a transaction of its own that commits before the provider is
 * called: the row says `sending` while it is out. A message found `sending` was cut off mid-hand-over
 * (a killed worker): it may have left, so it is failed, visibly, rather than risk sending it twice.
 * (A claim of this same attempt retried after it committed finds its own mark: nothing left yet.)
 * The contact's opt-outs and blocks are checked again here, at the moment it would leave.
 */
export async function claimSend(db: DataSource, messageId: string, attempt: number): Promise<Claim> {
  return db.transaction(async (m) => {
    const messages = messagesIn(new Data(m, undefined));
    const msg = await messages.lock(messageId);
    if (!msg || msg.direction !== 'outbound' || !msg.to_address) return { done: 'failed' };
    if (msg.status === 'sent' || msg.status === 'failed' || msg.status === 'suppressed')
      return { done: msg.status };
    // It left, and a bounce report came back before its hand-over was recorded: nothing more to do.
    if (msg.status === 'bounced') return { done: 'sent' };
    if (msg.status === 'sending' && msg.attempts !== attempt) {
      await messages.change(msg.id, { status: 'failed', error: INTERRUPTED });
      return { done: 'failed' };
    }
    const data = new Data(m, msg.workspace_id);
    const blocked = await blockedReason(data, msg.to_address, msg.channel);
    if (blocked) {
      await messages.change(msg.id, { status: 'suppressed', error: `${blocked}; it was not sent.` });
      return { done: 'suppressed' };
    }
    await messages.change(msg.id, {
      status: 'sending',
      attempts: attempt,
      ...(msg.started_at === null && { started_at: new Date() }),
    });
    const workspace = await workspaceNamed(data, msg.workspace_id);
    return {
      send: {
        id: msg.id,
        workspace_id: msg.workspace_id,
        lead_id: msg.lead_id,
        channel: msg.channel,
        subject: msg.subject,
        body: msg.body,
        in_reply_to: msg.in_reply_to,
        marketing: msg.marketing,
        // Which page the body links to, never the link: this result is kept in the workflow's history.
        page_link: msg.page_link,
        mail_id: msg.mail_id,
        to: msg.to_address,
        workspaceName: workspace?.name ?? '',
        attempt,
      },
    };
  });
}

/**
 * Records what the provider said. A transient failure waits for the next rung (or fails the message
 * on the last); a permanent one fails it, and one that says the address is dead (a hard bounce, an
 * invalid number) also suppresses the address, through the same operation as a manual block, so the
 * event and audit row are the ones every door writes.
 */
export async function settleSend(
  services: Services,
  msg: ClaimedMessage,
  result: ProviderResult,
  lastAttempt: boolean,
): Promise<AttemptOutcome> {
  const messages = (m = services.db.manager) => messagesIn(new Data(m, msg.workspace_id));
  if (result.kind === 'sent') {
    await messages().markSent(msg.id, result.providerMessageId);
    return 'sent';
  }
  if (result.kind === 'transient' && !lastAttempt && !result.maybeSent) {
    await messages().change(msg.id, { status: 'retrying', error: result.error });
    return 'retry';
  }
  const error =
    result.kind === 'transient'
      ? result.maybeSent
        ? `interrupted: the provider may have taken it before the failure (${result.error}); it is not sent again, so it is never sent twice`
        : `gave up after ${msg.attempt} attempts; the last said: ${result.error}`
      : result.error;
  if (result.kind === 'permanent' && result.block) {
    await runOperation(
      services,
      leadOperations.suppressContact,
      operatorActor({ door: 'activity', requestId: services.jobNames.message(msg.id) }),
      { address: msg.to, channel: msg.channel, reason: result.block, source: `${msg.channel} provider` },
      {
        workspaceId: msg.workspace_id,
        auditDetails: { message_id: msg.id },
        alsoInTransaction: (m) => messages(m).change(msg.id, { status: 'failed', error }),
      },
    );
  } else {
    await messages().change(msg.id, { status: 'failed', error });
  }
  return 'failed';
}
