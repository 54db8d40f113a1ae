import type { Data } from '../../kernel/data';
import type { OpportunityStage } from '../../kernel/event-catalogue';
import { OpportunityEntity, type Opportunity } from '../entities';

/** A workspace's opportunities. */
export const opportunitiesIn = (data: Data) => {
  const rows = data.scoped(OpportunityEntity);
  return {
    find: (id: string, lock = false) => rows.findOne({ id }, { lock }),

    /** The lead's open opportunity, if any (at most one: a partial unique index says so). */
    openFor: async (leadId: string): Promise<Opportunity | undefined> =>
      (
        await rows.find([
          { lead_id: leadId, stage: 'QUALIFIED' },
          { lead_id: leadId, stage: 'BOOKED' },
          { lead_id: leadId, stage: 'PROPOSAL' },
        ])
      )[0],

    /**
     * Opens one for the lead unless it has one open. SQL: ON CONFLICT against the partial unique
     * index, so two paths opening one at once (a booking and an intent) open one; undefined when the
     * lead already had one.
     */
    open: async (
      values: Pick<Opportunity, 'lead_id' | 'stage' | 'motion' | 'origin'>,
    ): Promise<Opportunity | undefined> => {
      const [row] = await data.sql<Opportunity[]>(
        `INSERT INTO opportunities (workspace_id, lead_id, stage, motion, origin) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (lead_id) WHERE stage NOT IN ('WON', 'LOST') DO NOTHING RETURNING *`,
        [data.workspaceId, values.lead_id, values.stage, values.motion, values.origin],
      );
      return row;
    },

    change: async (id: string, values: Partial<Opportunity>): Promise<Opportunity> =>
      (await rows.update({ id }, values))[0]!,

    list: (where: { lead_id?: string; stage?: OpportunityStage }, take: number) =>
      rows.find(where, { order: { created_at: 'DESC', id: 'DESC' }, take }),

    /**
     * INBOUND unless the lead came from prospecting (its first touch). SQL: one indexed lookup of
     * the touch that created it.
     */
    motionOf: async (leadId: string): Promise<'INBOUND' | 'OUTBOUND'> => {
      const [first] = await data.sql<{ source_type: string }[]>(
        `SELECT source_type FROM touches WHERE lead_id = $1 AND workspace_id = $2 ORDER BY created_at LIMIT 1`,
        [leadId, data.workspaceId],
      );
      return first?.source_type === 'prospecting' ? 'OUTBOUND' : 'INBOUND';
    },
  };
};
