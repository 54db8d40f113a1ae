import type { Data } from '../../kernel/data';
import { notFound } from '../../kernel/errors';
import { relayNotice } from '../../kernel/events';
import { AGENT_SCHEDULE_OUTBOX } from '../outboxes';
import { AgentEntity, type Agent, type AgentStatus } from '../entities';

const now = () => 'clock_timestamp()';

/** A workspace's agents. */
export const agentsIn = (data: Data) => {
  const rows = data.scoped(AgentEntity);
  return {
    create: (
      values: Pick<
        Agent,
        | 'name'
        | 'type'
        | 'cadence'
        | 'sources'
        | 'limits'
        | 'review_level'
        | 'template_version'
        | 'created_by'
      >,
    ) => rows.insert({ ...values, status: 'DRAFT' }),

    find: (id: string) => rows.findOne({ id }),

    /** Held (`FOR UPDATE`) until the transaction ends: its status decides what may follow. */
    lock: (id: string) => rows.findOne({ id }, { lock: true }),

    /**
     * Changes an agent. `resync` marks Temporal's schedule as behind (the relay, woken at commit, makes
     * it match: created, updated, paused or deleted).
     */
    change: async (id: string, values: Partial<Agent>, opts: { resync?: boolean } = {}): Promise<Agent> => {
      const [a] = await rows.update(
        { id },
        { ...values, updated_at: now, ...(opts.resync ? { schedule_synced_at: null } : {}) },
      );
      // PostgreSQL delivers a NOTIFY at commit, never for a rollback.
      if (opts.resync) await data.sql(...relayNotice(AGENT_SCHEDULE_OUTBOX, a!.workspace_id));
      return a!;
    },

    list: (filter: { status?: AgentStatus; limit: number }) =>
      rows.find(filter.status ? { status: filter.status } : {}, {
        order: { created_at: 'DESC', id: 'DESC' },
        take: filter.limit,
      }),
  };
};

/** An agent of this workspace, or "not found". */
export async function agentOf(data: Data, id: string, opts: { lock?: boolean } = {}): Promise<Agent> {
  const repo = agentsIn(data);
  const a = opts.lock ? await repo.lock(id) : await repo.find(id);
  if (!a) throw notFound('agent');
  return a;
}
