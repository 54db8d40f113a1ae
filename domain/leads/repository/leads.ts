import { randomUUID } from 'node:crypto';
import { IsNull } from 'typeorm';
import type { Changes, Data } from '../../kernel/data';
import { notFound } from '../../kernel/errors';
import {
  LeadEntity,
  LeadNoteEntity,
  ScoreEntity,
  TouchEntity,
  type Lead,
  type LeadNote,
  type Score,
  type Touch,
} from '../entities';
import { LEAD_COLUMNS } from './reads';

const now = () => 'clock_timestamp()';

/** What a score row records, the lead it belongs to aside. */
export type ScoreValues = Pick<
  Score,
  'total' | 'grade' | 'confidence' | 'trigger_event' | 'scoring_version' | 'reasons'
>;

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

/** A workspace's leads, and the notes, touches and scores recorded on them. */
export const leadsIn = (data: Data) => {
  const leads = data.scoped(LeadEntity);
  /** Changes a (locked) lead and answers it as now stored; every change but a score moves updated_at. */
  const change = async (id: string, values: Changes<Lead>): Promise<Lead> =>
    (await leads.update({ id }, { ...values, updated_at: now }))[0]!;
  /** A new score's row (its id chosen here) and the columns that put it on its lead. */
  const scoreFor = (leadId: string, score: ScoreValues) => {
    const id = randomUUID();
    return {
      row: data.scoped(ScoreEntity).row({ ...score, id, lead_id: leadId }),
      onLead: { score_id: id, score_total: score.total, score_grade: score.grade },
    };
  };

  return {
    change,

    /** Changes a (locked) lead without reading it back; updated_at moves. */
    mark: async (id: string, values: Changes<Lead>): Promise<void> => {
      await leads.set({ id }, { ...values, updated_at: now });
    },

    archive: (id: string) => change(id, { archived_at: now }),

    /** A lead's record changed without its details (a note was added): updated_at moves. */
    markChanged: (id: string) => change(id, {}),

    /** Refuses a lead that is not in the workspace (another workspace's is "not found"). */
    mustExist: async (id: string): Promise<void> => {
      if (!(await leads.exists({ id }))) throw notFound('lead');
    },

    /**
     * A new lead with its first touch and its score, written by one statement: the lead carries its
     * score from the start instead of being inserted and then updated (an update rewrites every index
     * entry of the row).
     */
    createScored: (
      values: Changes<Lead>,
      score: ScoreValues,
      touch: Pick<Touch, 'source_type' | 'source' | 'outcome' | 'contact'>,
    ): Promise<Lead> => {
      const id = randomUUID();
      const scored = scoreFor(id, score);
      return leads.insertWith({ ...values, id, ...scored.onLead }, [
        scored.row,
        data.scoped(TouchEntity).row({ ...touch, lead_id: id }),
      ]);
    },

    /**
     * A new score on a (locked) lead, with what the same event changed on it, written by one statement:
     * the score row inserted beside the update, instead of an update per change. updated_at moves with
     * the changes; a score alone is not a change of the lead's own details.
     */
    rescore: (id: string, score: ScoreValues, changes: Changes<Lead> = {}): Promise<Lead> => {
      const scored = scoreFor(id, score);
      const moved = Object.keys(changes).length > 0 ? { updated_at: now } : {};
      return leads.updateWith({ id }, { ...changes, ...scored.onLead, ...moved }, [scored.row]);
    },

    find: (id: string) => leads.findOne({ id }),

    /**
     * Fills a (locked) lead's gaps from a submission that taught it nothing (a consent date alone does
     * not count), so updated_at stays; nothing to fill writes nothing. A submission with something new
     * goes through `rescore`.
     */
    fillQuietly: async (lead: Lead, values: Changes<Lead>): Promise<Lead> => {
      if (Object.keys(values).length === 0) return lead;
      return (await leads.update({ id: lead.id }, values))[0]!;
    },

    /** Changes contact details, or answers undefined when another live lead has the email or phone. */
    changeContact: async (id: string, values: Changes<Lead>): Promise<Lead | undefined> => {
      try {
        // A nested transaction is a savepoint: the unique violation leaves the call's transaction usable.
        return await data.manager.transaction(() => change(id, values));
      } catch (err) {
        if (isUniqueViolation(err)) return undefined;
        throw err;
      }
    },

    /**
     * Serialises intakes of the same addresses in the workspace, so two at once cannot both create a
     * lead. SQL: transaction-scoped advisory locks, which TypeORM has no call for; taken in a fixed order.
     */
    lockAddresses: async (addresses: string[]): Promise<void> => {
      if (addresses.length === 0) return;
      // One round trip; the subquery's order is the order the locks are taken in.
      await data.prepared(
        'intake_lock_addresses',
        `SELECT pg_advisory_xact_lock(hashtextextended(a, 17))
           FROM (SELECT a FROM unnest($1::text[]) AS a ORDER BY a COLLATE "C") AS sorted`,
        [addresses.map((a) => `${data.workspaceId}:${a}`)],
      );
    },

    /**
     * An intake's two reads, after its address lock: the live leads with this email or phone, locked
     * (the one with the email first, then the oldest; at most two: the email's and the phone's), and
     * whether any of the addresses is suppressed, on any channel. SQL: one round trip for both, and
     * the order is an expression TypeORM's find cannot say.
     */
    matchIntake: async (
      email: string | null,
      phone: string | null,
      addresses: string[],
    ): Promise<{ leads: Lead[]; suppressed: boolean }> => {
      const rows = await data.prepared<(Lead & { suppressed: boolean })[]>(
        'intake_match',
        `SELECT s.suppressed, ${LEAD_COLUMNS.map((c) => `l.${c}`).join(', ')}
           FROM (SELECT EXISTS (SELECT 1 FROM suppressions WHERE workspace_id = $1 AND address = ANY($4))
                   AS suppressed) s
           LEFT JOIN LATERAL (
             SELECT ${LEAD_COLUMNS.join(', ')} FROM leads
              WHERE workspace_id = $1 AND archived_at IS NULL AND (email = $2 OR phone = $3)
              ORDER BY (email = $2) IS TRUE DESC, created_at LIMIT 2 FOR UPDATE) l ON true
          ORDER BY (l.email = $2) IS TRUE DESC, l.created_at`,
        [data.workspaceId, email, phone, addresses],
      );
      // Without a match, the one row has the suppression answer and a lead of nulls.
      const leads = rows.filter((r) => r.id !== null).map(({ suppressed: _, ...lead }) => lead);
      return { leads, suppressed: rows[0]!.suppressed };
    },

    /** The id of a live lead with this address (email or phone), if any. */
    liveWithAddress: async (address: string): Promise<string | undefined> => {
      const [lead] = await leads.find(
        [
          { email: address, archived_at: IsNull() },
          { phone: address, archived_at: IsNull() },
        ],
        { take: 1, select: { id: true } },
      );
      return lead?.id;
    },

    addNote: (values: Pick<LeadNote, 'lead_id' | 'body' | 'author_user_id'>) =>
      data.scoped(LeadNoteEntity).insert(values),

    addTouch: (values: Pick<Touch, 'lead_id' | 'source_type' | 'source' | 'outcome' | 'contact'>) =>
      data.scoped(TouchEntity).add(values, ['id']),
  };
};

/**
 * A lead, row-locked until the transaction ends (another workspace's is "not found"), and the call's
 * data confined to the lead's workspace: the operator's call learns it here, and what follows on the
 * lead's behalf (its suppressions, its messages) cannot reach another.
 */
export async function lockLead(data: Data, id: string): Promise<{ lead: Lead; data: Data }> {
  const lead = await data.scoped(LeadEntity).findOne({ id }, { lock: true });
  if (!lead) throw notFound('lead');
  return { lead, data: data.in(lead.workspace_id) };
}
