import type { Data } from '../kernel/data';
import { MessageEntity, type Message } from './entities';

export type MessageRecord = Pick<Message, 'id' | 'channel' | 'direction' | 'status' | 'body' | 'at'>;
export type Thread = MessageRecord & { messages: number };

/** A workspace's messages, to and from its leads. */
export const messagesIn = (data: Data) => {
  const rows = data.scoped(MessageEntity);
  return {
    record: (values: Pick<Message, 'lead_id' | 'channel' | 'direction' | 'status' | 'body'>) =>
      rows.insert(values),

    setStatus: async (id: string, status: string): Promise<void> => {
      await rows.set({ id }, { status });
    },

    hasInbound: (leadId: string) => rows.exists({ lead_id: leadId, direction: 'inbound' }),

    /** A lead's messages on one channel, newest first. */
    thread: (leadId: string, channel: string, limit: number): Promise<MessageRecord[]> =>
      rows.find(
        { lead_id: leadId, channel },
        {
          order: { at: 'DESC', id: 'DESC' },
          take: limit,
          select: { id: true, channel: true, direction: true, status: true, body: true, at: true },
        },
      ),

    /**
     * A lead's threads: per channel its newest message (body cut short) and how many it holds, in
     * channel order. SQL: DISTINCT ON with a window count, one pass that TypeORM's find cannot say.
     */
    threads: (leadId: string, bodyChars: number): Promise<Thread[]> =>
      data.sql<Thread[]>(
        `SELECT DISTINCT ON (channel) channel, id, direction, status, left(body, $3) AS body, at,
                count(*) OVER (PARTITION BY channel)::int AS messages
           FROM messages WHERE lead_id = $1 AND ($2::uuid IS NULL OR workspace_id = $2)
          ORDER BY channel, at DESC, id DESC`,
        [leadId, data.workspaceId ?? null, bodyChars],
      ),
  };
};
