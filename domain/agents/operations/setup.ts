import * as yup from 'yup';
import { actorUserId } from '../../kernel/actor';
import type { Data } from '../../kernel/data';
import { DomainError, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, WRITE, defineOperation, flagList } from '../../kernel/operation';
import { pageSize } from '../../kernel/validate';
import { AGENT_STATUSES, type Agent, type Limits } from '../entities';
import { agentRunsIn, agentsIn } from '../repository';
import { AGENTS_READ, AGENTS_WRITE } from '../requirements';
import { DEFAULT_LIMITS, agentFields, agentIdField, agentInput } from '../schemas';
import { TEMPLATE_VERSION } from '../templates';
import { AGENT, AGENTS, RUNS, agentView, runView } from '../views';
import type { Effect } from '../../kernel/effect';
import { agentBound, settingsOf, widenings, type AgentBound, type Settings } from '../effects';

/** An agent of this workspace, or "not found". */
export async function agentOf(data: Data, id: string, opts: { lock?: boolean } = {}): Promise<Agent> {
  const repo = agentsIn(data);
  const a = opts.lock ? await repo.lock(id) : await repo.find(id);
  if (!a) throw notFound('agent');
  return a;
}

/** "the follow-up agent "Chaser"", for a person reading what they approve. */
const agentNamed = (a: Pick<Agent, 'type' | 'name'>) => `the ${a.type.replace('_', '-')} agent "${a.name}"`;

/** `agentNamed`, from the call's effect when it has one, else from the record (or its id). */
export async function described(i: { agentId: string }, look?: Data, effect?: Effect): Promise<string> {
  const a = effect ? (effect.bound as AgentBound) : look && (await agentsIn(look).find(i.agentId));
  return a ? agentNamed(a) : `agent ${i.agentId}`;
}

/** What a person approves when an agent starts or runs (`agentBound`), read under its lock when `lock`. */
export const agentEffect = async (
  i: { agentId: string },
  data: Data,
  opts: { lock: boolean },
): Promise<Effect> => ({ bound: agentBound(await agentOf(data, i.agentId, opts)) });

const checkSourcesFit = (a: Pick<Agent, 'type' | 'sources'>) => {
  const s = a.sources;
  if (a.type === 'follow_up' && s.prospect_lists?.length)
    throw new DomainError('invalid_request', 'sources.prospect_lists are for prospecting agents.', {
      field: 'sources.prospect_lists',
    });
  if (a.type === 'prospecting' && (s.lead_statuses?.length || s.lead_sources?.length))
    throw new DomainError(
      'invalid_request',
      'sources.lead_statuses and sources.lead_sources are for follow-up agents.',
      { field: s.lead_statuses?.length ? 'sources.lead_statuses' : 'sources.lead_sources' },
    );
};

const SETTINGS = {
  cadence: agentFields.cadence,
  sources: agentFields.sources,
  limits: agentFields.limits,
  review_level: agentFields.review_level,
};

export const createAgent = defineOperation({
  name: 'agent.create',
  title: 'Create an AI agent (draft)',
  description:
    "Creates an AI agent as a DRAFT: its type (follow_up or prospecting), and optionally its cadence, sources, limits and review level. It does nothing until it is started, which a person approves. Agents write from the service's versioned templates: no model, temperature, token budget or prompt can be set.",
  returns: 'The agent, status DRAFT.',
  requirement: AGENTS_WRITE,
  reach: 'workspace',
  ...WRITE,
  input: agentInput(
    {
      name: agentFields.name.required('name is required'),
      type: agentFields.type.required('type is required'),
      ...SETTINGS,
    },
    'agent.create',
  ),
  output: AGENT,
  doors: {
    mcp: true,
    admin: {
      command: 'agent create',
      flags: (f) => ({ name: f.name, type: f.type, ...(f.review ? { review_level: f.review } : {}) }),
    },
  },
  summary: (i) => `Create the ${i.type} agent "${i.name}"`,
  run: async (ctx, i) => {
    const values = {
      name: i.name,
      type: i.type as Agent['type'],
      cadence: i.cadence ?? null,
      sources: i.sources ?? {},
      limits: { ...DEFAULT_LIMITS, ...i.limits } as Limits,
      review_level: i.review_level ?? 'draft',
    };
    checkSourcesFit(values);
    const a = await agentsIn(ctx.data).create({
      ...values,
      template_version: TEMPLATE_VERSION,
      created_by: actorUserId(ctx.actor),
    });
    ctx.audit(a.workspace_id, { agent_id: a.id, type: a.type });
    return agentView(a);
  },
});

type Configure = {
  agentId: string;
  cadence?: Agent['cadence'];
  sources?: Agent['sources'];
  limits?: Partial<Limits>;
  review_level?: string;
};

/** The settings a configure call leaves the agent with: what it names, over what the agent has. */
const configured = (a: Agent, i: Configure): Settings => ({
  cadence: i.cadence ?? a.cadence,
  sources: i.sources ?? a.sources,
  // A limit given as undefined (an admin flag left out) keeps the agent's.
  limits: {
    ...a.limits,
    ...Object.fromEntries(Object.entries(i.limits ?? {}).filter(([, v]) => v !== undefined)),
  },
  review_level: (i.review_level ?? a.review_level) as Agent['review_level'],
});

/** A running (ACTIVE or PAUSED) agent that this call would let do more: that waits for a person. */
const widensRunning = (a: Agent, i: Configure) =>
  (a.status === 'ACTIVE' || a.status === 'PAUSED') && widenings(settingsOf(a), configured(a, i)).length > 0;

export const configureAgent = defineOperation({
  name: 'agent.configure',
  title: 'Configure an AI agent',
  description:
    "Changes an agent's cadence, sources, limits or review level (only these; its type is set when it is created). A running agent's schedule follows at once. On an ACTIVE or PAUSED agent, a change that widens what it may do (review level draft to send, a higher limit, a new or wider source, a new day) needs a person's approval; narrowing runs at once. No model, temperature, token budget or prompt can be set. An agent cannot configure agents.",
  returns: 'The agent as it now is (once approved, when it widens a running agent).',
  requirement: AGENTS_WRITE,
  reach: 'record',
  ...WRITE,
  idempotent: true,
  gated: true,
  gatedWhen: async (i, data, opts) => widensRunning(await agentOf(data, i.agentId, opts), i),
  effect: async (i, data, opts) => {
    const a = await agentOf(data, i.agentId, opts);
    const after = configured(a, i);
    // The settings it had are bound (the change is applied to them); its status is only shown: a
    // pause in between does not change what the widening allows.
    return {
      bound: agentBound(a),
      shown: { status: a.status, before: settingsOf(a), after, widens: widenings(settingsOf(a), after) },
    };
  },
  input: agentInput({ agentId: agentIdField, ...SETTINGS }, 'agent.configure'),
  output: AGENT,
  doors: {
    mcp: true,
    admin: {
      command: 'agent configure',
      flags: (f) => ({
        agentId: f.id,
        ...(f.days || f.time ? { cadence: { days: flagList(f.days)?.map(Number), time: f.time } } : {}),
        ...(f.statuses || f.sources || f.lists
          ? {
              sources: {
                lead_statuses: flagList(f.statuses),
                lead_sources: flagList(f.sources),
                prospect_lists: flagList(f.lists),
              },
            }
          : {}),
        ...(f['per-run'] || f['per-day'] || f['per-lead-per-week']
          ? {
              limits: {
                per_run: f['per-run'],
                per_day: f['per-day'],
                per_lead_per_week: f['per-lead-per-week'],
              },
            }
          : {}),
        ...(f.review ? { review_level: f.review } : {}),
      }),
    },
  },
  summary: async (i, look, effect) => {
    const widens = effect?.shown?.widens as string[] | undefined;
    const status = effect?.shown?.status as string | undefined;
    return widens?.length
      ? `Configure ${await described(i, look, effect)} (${status}), widening it: ${widens.join('; ')}`
      : `Configure ${await described(i, look, effect)}`;
  },
  run: async (ctx, i) => {
    const a = await agentOf(ctx.data, i.agentId, { lock: true });
    if (a.status === 'STOPPED')
      throw new DomainError('conflict', 'The agent is STOPPED: a stopped agent cannot be configured.');
    const next = configured(a, i);
    checkSourcesFit({ type: a.type, sources: next.sources });
    const changed = await agentsIn(ctx.data.in(a.workspace_id)).change(a.id, next, {
      resync: a.status === 'ACTIVE' || a.status === 'PAUSED',
    });
    ctx.audit(a.workspace_id, {
      agent_id: a.id,
      changed: Object.keys(i).filter((k) => k !== 'agentId'),
      widens: widenings(settingsOf(a), next),
    });
    return agentView(changed);
  },
});

export const listAgents = defineOperation({
  name: 'agent.list',
  title: 'List AI agents',
  description: "The workspace's AI agents, newest first, optionally by status.",
  returns: '{ data: [agent], count }.',
  requirement: AGENTS_READ,
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({
    status: describe(
      yup.string().oneOf([...AGENT_STATUSES], `status must be one of ${AGENT_STATUSES.join(', ')}`),
      'Only agents in this status.',
    ),
    limit: describe(pageSize(100), 'How many, 1 to 100 (default 25).'),
  }),
  output: AGENTS,
  doors: {
    mcp: true,
    admin: { command: 'agent list', flags: (f) => ({ status: f.status, limit: f.limit }) },
  },
  summary: () => 'List the AI agents',
  run: async (ctx, i) => {
    const rows = await agentsIn(ctx.data).list({ status: i.status, limit: i.limit });
    return { data: rows.map((a) => agentView(a)), count: rows.length };
  },
});

export const getAgent = defineOperation({
  name: 'agent.get',
  title: 'Read an AI agent',
  description:
    "One agent's setup and status, with what Temporal says of its schedule (paused, and by whom's note; its next runs).",
  returns: 'The agent, with its schedule.',
  requirement: AGENTS_READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({ agentId: agentIdField }),
  output: AGENT,
  doors: { mcp: true, admin: { command: 'agent get', flags: (f) => ({ agentId: f.id }) } },
  summary: (i) => `Read agent ${i.agentId}`,
  run: async (ctx, { agentId }) => {
    const a = await agentOf(ctx.data, agentId);
    const schedule = await ctx.services.agents?.schedule(a.id);
    return agentView(a, schedule);
  },
});

const MAX_ACTIONS_SHOWN = 200;

export const agentRuns = defineOperation({
  name: 'agent.runs',
  title: "An AI agent's runs",
  description:
    'What an agent did, newest run first: each run with its trigger, status and note, and each action with its lead, message or draft, and outcome (sent, drafted, skipped, proposed).',
  returns: '{ agent_id, data: [run with actions], count }.',
  requirement: AGENTS_READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({
    agentId: agentIdField,
    limit: describe(pageSize(50), 'How many runs, 1 to 50 (default 25).'),
  }),
  output: RUNS,
  doors: {
    mcp: true,
    admin: { command: 'agent runs', flags: (f) => ({ agentId: f.id, limit: f.limit }) },
  },
  summary: (i) => `Read the runs of agent ${i.agentId}`,
  run: async (ctx, { agentId, limit }) => {
    const a = await agentOf(ctx.data, agentId);
    const repo = agentRunsIn(ctx.data.in(a.workspace_id));
    const runs = await repo.list(a.id, limit);
    const actions = await repo.actionsOf(runs.map((r) => r.id));
    const data = runs.map((r) =>
      runView(r, actions.filter((x) => x.run_id === r.id).slice(0, MAX_ACTIONS_SHOWN)),
    );
    return { agent_id: a.id, data, count: data.length };
  },
});
