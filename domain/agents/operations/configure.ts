import { DomainError } from '../../kernel/errors';
import { WRITE, defineOperation, flagList } from '../../kernel/operation';
import type { Agent, Limits } from '../entities';
import { agentBound, described, settingsOf, widenings, type Settings } from '../effects';
import { agentOf, agentsIn } from '../repository/agents';
import { AGENTS_WRITE } from '../requirements';
import { agentIdField, agentInput, checkSourcesFit, settingsFields } from '../schemas';
import { AGENT, agentView } from '../views';

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
  input: agentInput({ agentId: agentIdField, ...settingsFields }, 'agent.configure'),
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
    return agentView(changed, ctx.services.jobNames);
  },
});
