import type { Data } from '../kernel/data';
import { relayNotice } from '../kernel/events';
import {
  AgentActionEntity,
  AgentDraftEntity,
  AgentEntity,
  AgentRunEntity,
  HandoffEntity,
  type ActionKind,
  type Agent,
  type AgentAction,
  type AgentDraft,
  type AgentRun,
  type AgentStatus,
  type Handoff,
} from './entities';

const now = () => 'clock_timestamp()';

/** Kinds of action that count against an agent's limits: a message sent or drafted. */
const MESSAGE_KINDS: ActionKind[] = ['sent', 'drafted'];

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
      if (opts.resync) await data.sql(...relayNotice('agent schedule'));
      return a!;
    },

    list: (filter: { status?: AgentStatus; limit: number }) =>
      rows.find(filter.status ? { status: filter.status } : {}, {
        order: { created_at: 'DESC', id: 'DESC' },
        take: filter.limit,
      }),
  };
};

/** An agent's runs and what each did. */
export const agentRunsIn = (data: Data) => {
  const runs = data.scoped(AgentRunEntity);
  const actions = data.scoped(AgentActionEntity);
  return {
    /**
     * The run a workflow is: made by its first activity, found again by a retry of it.
     * SQL: an upsert keyed by the workflow id, answering the row either way.
     */
    begin: async (agent: Agent, workflowId: string, trigger: AgentRun['trigger']): Promise<AgentRun> => {
      const [row] = await data.sql<AgentRun[]>(
        `INSERT INTO agent_runs (workspace_id, agent_id, workflow_id, trigger) VALUES ($1, $2, $3, $4)
         ON CONFLICT (workflow_id) DO UPDATE SET workflow_id = EXCLUDED.workflow_id RETURNING *`,
        [agent.workspace_id, agent.id, workflowId, trigger],
      );
      return row!;
    },

    find: (id: string) => runs.findOne({ id }),

    finish: async (id: string, status: AgentRun['status'], note: string | null): Promise<void> => {
      await runs.set({ id, status: 'RUNNING' }, { status, note, finished_at: now });
    },

    list: (agentId: string, limit: number) =>
      runs.find({ agent_id: agentId }, { order: { started_at: 'DESC', id: 'DESC' }, take: limit }),

    /** What the runs did, in the order they did it. */
    actionsOf: (runIds: string[]): Promise<AgentAction[]> =>
      runIds.length === 0
        ? Promise.resolve([])
        : data.sql<AgentAction[]>(
            // SQL: every listed run's actions in one statement, in the workspace.
            `SELECT * FROM agent_actions WHERE workspace_id = $1 AND run_id = ANY($2::uuid[]) ORDER BY at, id`,
            [data.workspaceId, runIds],
          ),

    /** `at`: the run's clock (its workflow's), so limits measured by it count what it did. */
    record: (
      values: Pick<AgentAction, 'agent_id' | 'run_id' | 'kind' | 'lead_id' | 'outcome'> &
        Partial<Pick<AgentAction, 'subject_id' | 'message_id' | 'draft_id' | 'at'>>,
    ) => actions.insert({ subject_id: null, message_id: null, draft_id: null, ...values }),

    /** Messages the agent sent or drafted since `since` (its daily limit), or in this run (per run). */
    messagesSince: async (agentId: string, since: Date): Promise<number> => {
      const [r] = await data.sql<{ n: number }[]>(
        // SQL: a count over the agent's index.
        `SELECT count(*)::int AS n FROM agent_actions
          WHERE agent_id = $1 AND at >= $2 AND kind = ANY($3::text[])`,
        [agentId, since, MESSAGE_KINDS],
      );
      return r!.n;
    },

    messagesInRun: async (runId: string): Promise<number> => {
      const [r] = await data.sql<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM agent_actions WHERE run_id = $1 AND kind = ANY($2::text[])`,
        [runId, MESSAGE_KINDS],
      );
      return r!.n;
    },

    /** How many chase messages the agent has written to a lead, ever (which template comes next). */
    chasesOf: async (agentId: string, leadId: string): Promise<number> => {
      const [r] = await data.sql<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM agent_actions
          WHERE lead_id = $1 AND agent_id = $2 AND kind = ANY($3::text[])`,
        [leadId, agentId, MESSAGE_KINDS],
      );
      return r!.n;
    },

    /** The follow-up agent that last wrote to a lead, if any: the one a reply answers. */
    lastChaserOf: async (leadId: string): Promise<string | undefined> => {
      const [r] = await data.sql<{ agent_id: string }[]>(
        `SELECT a.agent_id FROM agent_actions a JOIN agents g ON g.id = a.agent_id
          WHERE a.lead_id = $1 AND a.kind = ANY($2::text[]) AND g.type = 'follow_up'
          ORDER BY a.at DESC LIMIT 1`,
        [leadId, MESSAGE_KINDS],
      );
      return r?.agent_id;
    },

    /**
     * Leads a follow-up agent may chase now, oldest contact first: live, open, matching its sources,
     * reachable by email, not waiting for a person (an unanswered message, a hand-over), not already
     * acted on in this run, with no draft of its own waiting for review, whose last message is not the
     * lead's own (they are not owed an answer by us; an unverified email is not theirs), under the per-lead weekly limit, and not chased
     * to the end of the templates.
     * SQL: one statement over the lead and message indexes; the candidates never pass through Node.
     */
    chaseable: (
      agent: Agent,
      runId: string,
      opts: { limit: number; weekAgo: Date; chaseLength: number },
    ): Promise<{ id: string }[]> =>
      data.sql<{ id: string }[]>(
        `SELECT l.id FROM leads l
          LEFT JOIN LATERAL (SELECT m.direction, m.at FROM messages m WHERE m.lead_id = l.id
                                AND m.authenticity IS DISTINCT FROM 'unverified'
                              ORDER BY m.at DESC, m.id DESC LIMIT 1) last ON true
          WHERE l.workspace_id = $1 AND l.archived_at IS NULL AND l.email IS NOT NULL
            AND l.follow_up <> 'STOPPED' AND l.status NOT IN ('WON', 'LOST') AND NOT l.needs_attention
            AND ($2::text[] IS NULL OR l.status = ANY($2))
            AND ($3::text[] IS NULL OR l.source = ANY($3))
            AND (last.direction IS NULL OR last.direction = 'outbound')
            AND NOT EXISTS (SELECT 1 FROM agent_actions a WHERE a.run_id = $4 AND a.lead_id = l.id)
            AND NOT EXISTS (SELECT 1 FROM agent_drafts d WHERE d.lead_id = l.id AND d.agent_id = $5
                              AND d.status = 'PENDING')
            AND (SELECT count(*) FROM agent_actions a WHERE a.lead_id = l.id AND a.agent_id = $5
                   AND a.kind = ANY($6::text[]) AND a.at >= $7) < $8
            AND (SELECT count(*) FROM agent_actions a WHERE a.lead_id = l.id AND a.agent_id = $5
                   AND a.kind = ANY($6::text[])) < $9
          ORDER BY last.at NULLS FIRST, l.created_at, l.id
          LIMIT $10`,
        [
          agent.workspace_id,
          agent.sources.lead_statuses?.length ? agent.sources.lead_statuses : null,
          agent.sources.lead_sources?.length ? agent.sources.lead_sources : null,
          runId,
          agent.id,
          MESSAGE_KINDS,
          opts.weekAgo,
          agent.limits.per_lead_per_week,
          opts.chaseLength,
          opts.limit,
        ],
      ),
  };
};

/** Drafts waiting for a person, and what became of them. */
export const agentDraftsIn = (data: Data) => {
  const rows = data.scoped(AgentDraftEntity);
  return {
    create: (
      values: Omit<
        AgentDraft,
        'id' | 'workspace_id' | 'status' | 'message_id' | 'decided_by' | 'decided_at' | 'created_at'
      >,
    ) => rows.insert(values),
    lock: (id: string) => rows.findOne({ id }, { lock: true }),
    list: (filter: { agentId?: string; status: AgentDraft['status']; limit: number }) =>
      rows.find(
        { status: filter.status, ...(filter.agentId ? { agent_id: filter.agentId } : {}) },
        { order: { created_at: 'ASC', id: 'ASC' }, take: filter.limit },
      ),
    decide: async (id: string, values: Pick<AgentDraft, 'status' | 'message_id' | 'decided_by'>) =>
      (await rows.update({ id }, { ...values, decided_at: now }))[0]!,
    /** The lead replied: the agent's drafts for it that wait for review will not be sent. */
    discardFor: (agentId: string, leadId: string, by: string) =>
      rows.set(
        { agent_id: agentId, lead_id: leadId, status: 'PENDING' },
        { status: 'DISCARDED', decided_by: by, decided_at: now },
      ),
    /** The drafted action points at the message the draft became. */
    linkMessage: async (draftId: string, messageId: string) => {
      await data.scoped(AgentActionEntity).set({ draft_id: draftId }, { message_id: messageId });
    },
  };
};

/** Hand-overs to a person. */
export const handoffsIn = (data: Data) => {
  const rows = data.scoped(HandoffEntity);
  return {
    open: (
      values: Pick<Handoff, 'lead_id' | 'agent_id' | 'message_id' | 'channel' | 'reason' | 'priority'>,
    ) => rows.insert(values),
    /** A person answered the lead: its open hand-overs are done. */
    resolveFor: (leadId: string) =>
      rows.set({ lead_id: leadId, status: 'OPEN' }, { status: 'RESOLVED', resolved_at: now }),
  };
};

/** The background work on agents, across workspaces: the relay keeps their schedules in step. */
export const agentUpkeep = (data: Data) => ({
  /** Agents whose schedule is behind their status (or with a run to start), oldest change first. */
  unsynced: (limit: number, startedMeanwhile: string[]) =>
    // SQL: the scan follows the partial index of unsynced agents, leaving out a list.
    data.sql<(Agent & { timezone: string })[]>(
      `SELECT a.*, w.timezone FROM agents a JOIN workspaces w ON w.id = a.workspace_id
        WHERE a.schedule_synced_at IS NULL
          AND NOT ((a.id::text || '@' || floor(extract(epoch FROM a.updated_at) * 1000)::bigint::text) = ANY($2::text[]))
        ORDER BY a.updated_at LIMIT $1`,
      [limit, startedMeanwhile],
    ),

  /**
   * In step, unless it changed again meanwhile (then the next pass syncs the newer state). A Date holds
   * milliseconds and PostgreSQL microseconds, so "unchanged" is "within the same millisecond".
   */
  synced: async (a: Agent): Promise<void> => {
    await data.sql(
      `UPDATE agents SET schedule_synced_at = clock_timestamp(), run_requested_at = NULL
        WHERE id = $1 AND abs(extract(epoch FROM updated_at - $2::timestamptz)) < 0.001`,
      [a.id, a.updated_at],
    );
  },
});

/** The relay's key for an agent's state: a change makes a new one, so it is not skipped as just synced. */
export const agentSyncKey = (a: Agent) => `${a.id}@${a.updated_at.getTime()}`;
