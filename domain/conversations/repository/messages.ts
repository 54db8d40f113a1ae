import { IsNull, type FindOptionsWhere } from 'typeorm';
import type { Data } from '../../kernel/data';
import { relayNotice } from '../../kernel/events';
import { MESSAGE_OUTBOX } from '../outboxes';
import { activeTraceparent } from '../../kernel/tracing';
import { MessageEntity, type Message } from '../entities';

export type MessageRecord = Pick<
  Message,
  'id' | 'channel' | 'direction' | 'status' | 'body' | 'at' | 'authenticity'
>;
export type Thread = MessageRecord & { messages: number };

/** What an outbound message needs to leave: fixed when it is queued. */
export type Outbound = Pick<
  Message,
  'lead_id' | 'channel' | 'to_address' | 'subject' | 'body' | 'in_reply_to' | 'marketing'
> &
  Partial<Pick<Message, 'page_link'>>;

/**
 * Inbound messages that count as the lead's: all but an unverified email (whose sender is not proven;
 * null is a channel without a verdict, or mail stored before verdicts were kept).
 */
const actedOn = (where: FindOptionsWhere<Message>): FindOptionsWhere<Message>[] => [
  { ...where, direction: 'inbound', authenticity: IsNull() },
  { ...where, direction: 'inbound', authenticity: 'verified' },
];

/** A workspace's messages, to and from its leads. */
export const messagesIn = (data: Data) => {
  const rows = data.scoped(MessageEntity);
  return {
    record: (
      values: Pick<Message, 'lead_id' | 'channel' | 'direction' | 'status' | 'body'> &
        Partial<
          Pick<
            Message,
            | 'subject'
            | 'provider_message_id'
            | 'in_reply_to'
            | 'classification'
            | 'authenticity'
            | 'authentication'
          >
        >,
    ) => rows.insert(values),

    /**
     * Queues an outbound message in the change's transaction (an outbox): the relay, woken at commit,
     * starts the workflow that sends it, so a message exists exactly when the change that wrote it does.
     */
    queue: async (values: Outbound): Promise<Message> => {
      const row = await rows.insert({
        ...values,
        direction: 'outbound',
        status: 'queued',
        traceparent: activeTraceparent(),
      });
      // PostgreSQL delivers a NOTIFY at commit, never for a rollback.
      await data.sql(...relayNotice(MESSAGE_OUTBOX, row.workspace_id));
      return row;
    },

    /** The message, held (`FOR UPDATE`) until the transaction ends. */
    lock: (id: string) => rows.findOne({ id }, { lock: true }),

    find: (id: string) => rows.findOne({ id }),

    change: async (id: string, values: Partial<Message>): Promise<void> => {
      await rows.set({ id }, values);
    },

    setStatus: async (id: string, status: string): Promise<void> => {
      await rows.set({ id }, { status });
    },

    /** Whether the lead wrote to us: an unverified email does not count. */
    hasInbound: async (leadId: string) =>
      (await rows.find(actedOn({ lead_id: leadId }), { take: 1, select: { id: true } })).length > 0,

    /** Whether a provider already reported this inbound message (a replayed webhook). */
    alreadyReceived: (channel: string, providerMessageId: string) =>
      rows.exists({ channel, provider_message_id: providerMessageId, direction: 'inbound' }),

    /**
     * An email we sent, held (`FOR UPDATE`) until the transaction ends: by its id (a report's return
     * path names it, and finds it even before its hand-over is recorded), or by the Message-ID it
     * carried (recorded at the hand-over).
     */
    lockOutboundEmail: (by: { id: string } | { messageId: string }) =>
      rows.findOne(
        'id' in by
          ? { id: by.id, channel: 'email', direction: 'outbound' }
          : { provider_message_id: by.messageId, channel: 'email', direction: 'outbound' },
        { lock: true },
      ),

    /**
     * Records the provider's acceptance of an outbound message, unless a bounce report about it came
     * first (it stays `bounced`): the hand-over never overwrites what the recipient's side said.
     */
    markSent: async (id: string, providerMessageId: string): Promise<void> => {
      // SQL: one statement, so nobody reads it `sent` without its provider id; TypeORM cannot say the CASE.
      await data.sql(
        `UPDATE messages SET provider_message_id = $2, sent_at = clock_timestamp(),
                error = CASE WHEN status = 'bounced' THEN error END,
                status = CASE WHEN status = 'bounced' THEN status ELSE 'sent' END
          WHERE id = $1 AND ($3::uuid IS NULL OR workspace_id = $3)`,
        [id, providerMessageId, data.workspaceId ?? null],
      );
    },

    /** The addresses we emailed the lead at (handed over or on the way), newest first. */
    emailedAt: async (leadId: string): Promise<string[]> =>
      (
        await data.sql<{ to_address: string }[]>(
          // SQL: DISTINCT ON keeps each address once, at its newest message; TypeORM's find cannot say it.
          `SELECT to_address FROM (
             SELECT DISTINCT ON (to_address) to_address, at FROM messages
              WHERE lead_id = $1 AND direction = 'outbound' AND channel = 'email' AND to_address IS NOT NULL
                AND ($2::uuid IS NULL OR workspace_id = $2)
              ORDER BY to_address, at DESC) a
           ORDER BY at DESC`,
          [leadId, data.workspaceId ?? null],
        )
      ).map((r) => r.to_address),

    /** The lead's newest email from them that has a Message-ID: a reply threads on it. */
    lastInboundEmail: async (leadId: string) =>
      (
        await rows.find(actedOn({ lead_id: leadId, channel: 'email' }), {
          order: { at: 'DESC' },
          take: 1,
          select: { provider_message_id: true, subject: true },
        })
      )[0],

    /** A lead's messages on one channel, newest first. */
    thread: (leadId: string, channel: string, limit: number): Promise<MessageRecord[]> =>
      rows.find(
        { lead_id: leadId, channel },
        {
          order: { at: 'DESC', id: 'DESC' },
          take: limit,
          select: {
            id: true,
            channel: true,
            direction: true,
            status: true,
            body: true,
            at: true,
            authenticity: true,
          },
        },
      ),

    /**
     * A lead's threads: per channel its newest message (body cut short) and how many it holds, in
     * channel order. SQL: DISTINCT ON with a window count, one pass that TypeORM's find cannot say.
     */
    threads: (leadId: string, bodyChars: number): Promise<Thread[]> =>
      data.sql<Thread[]>(
        `SELECT DISTINCT ON (channel) channel, id, direction, status, left(body, $3) AS body, at, authenticity,
                count(*) OVER (PARTITION BY channel)::int AS messages
           FROM messages WHERE lead_id = $1 AND ($2::uuid IS NULL OR workspace_id = $2)
          ORDER BY channel, at DESC, id DESC`,
        [leadId, data.workspaceId ?? null, bodyChars],
      ),
  };
};
