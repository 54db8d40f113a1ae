import { inSlots, slotsParam, type RelaySlots } from '../../kernel/outbox';
import type { Data } from '../../kernel/data';
import { relayNotice } from '../../kernel/events';
import { MemberMailEntity, type MemberMail, type MemberMailKind } from '../entities';

/** What the relay's outbox and the mail's workflow name it by: never its address, subject or text. */
export const MEMBER_MAIL_OUTBOX = 'member mail';

/** A mail whose workflow the relay must start. */
export type MemberMailToStart = Pick<MemberMail, 'id' | 'kind' | 'workspace_id'>;

/** A mail locked for its hand-over, with where it goes and who it is from. */
export type LockedMail = Pick<MemberMail, 'id' | 'status' | 'sealed' | 'kind'> & {
  to: string;
  workspace_name: string | null;
};

/** The member mail outbox: rows written with a change, each sent once by its workflow. */
export const memberMailIn = (data: Data) => {
  const mail = data.global(MemberMailEntity);
  return {
    /** Queues a sealed mail and wakes the relay at commit (the NOTIFY is delivered then, or never). */
    queue: async (row: {
      userId: string;
      workspaceId: string | null;
      kind: MemberMailKind;
      sealed: Buffer;
    }) => {
      const { id } = await mail.add(
        { user_id: row.userId, workspace_id: row.workspaceId, kind: row.kind, sealed: row.sealed },
        ['id'],
      );
      // A mail of no workspace is in its own id's slot, as `unstarted` reads it.
      await data.sql(...relayNotice(MEMBER_MAIL_OUTBOX, row.workspaceId ?? id));
      return id;
    },

    /**
     * Mail whose workflow has not started, oldest first, but for those just started. SQL: the partial
     * index of unstarted rows.
     */
    unstarted: (limit: number, startedMeanwhile: string[], slots: RelaySlots): Promise<MemberMailToStart[]> =>
      data.sql<MemberMailToStart[]>(
        `SELECT id, kind, workspace_id FROM member_mail
          WHERE started_at IS NULL AND NOT (id = ANY($2::uuid[]))
            AND ${inSlots('coalesce(workspace_id, id)', '$3')}
          ORDER BY created_at LIMIT $1`,
        [limit, startedMeanwhile, slotsParam(slots)],
      ),

    /** Marks a mail's workflow started, so the relay offers it no more. */
    started: async (id: string) => {
      await mail.set({ id }, { started_at: () => 'coalesce(started_at, clock_timestamp())' });
    },

    /**
     * The mail, locked for the rest of the transaction, with its member's address (read now, so an
     * address is never copied into the outbox) and its workspace's name. SQL: one read joining them.
     */
    lock: async (id: string): Promise<LockedMail | undefined> => {
      const [row] = await data.sql<LockedMail[]>(
        `SELECT m.id, m.status, m.sealed, m.kind, u.email AS to, w.name AS workspace_name
           FROM member_mail m JOIN users u ON u.id = m.user_id LEFT JOIN workspaces w ON w.id = m.workspace_id
          WHERE m.id = $1 FOR UPDATE OF m`,
        [id],
      );
      return row;
    },

    /** Takes the mail out for a hand-over: once it says `sending`, it is never handed over again. */
    claim: async (id: string, attempt: number) => {
      await mail.set(
        { id },
        { status: 'sending', attempts: attempt, started_at: () => 'coalesce(started_at, clock_timestamp())' },
      );
    },

    /** Records the send and wipes the sealed subject and text, in one statement. */
    sent: async (id: string, providerMessageId: string) => {
      await mail.set(
        { id },
        {
          status: 'sent',
          sent_at: () => 'clock_timestamp()',
          provider_message_id: providerMessageId,
          sealed: null,
          error: null,
        },
      );
    },

    /** Waits for the next rung, keeping what the provider said. */
    retrying: async (id: string, error: string) => {
      await mail.set({ id }, { status: 'retrying', error });
    },

    /** Gives up, visibly, and wipes the sealed subject and text: a link in it would only age. */
    failed: async (id: string, error: string) => {
      await mail.set({ id }, { status: 'failed', error, sealed: null });
    },
  };
};
