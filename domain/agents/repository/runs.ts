import type { Data } from '../../kernel/data';
import {
  AgentActionEntity,
  AgentRunEntity,
  type ActionKind,
  type Agent,
  type AgentAction,
  type AgentRun,
} from '../entities';

const now = () => 'clock_timestamp()';

/** Kinds of action that count against an agent's limits: a message sent or drafted. */
const MESSAGE_KINDS: ActionKind[] = ['sent', 'drafted'];

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
