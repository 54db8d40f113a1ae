import * as yup from 'yup';
import type { Data } from '../../kernel/data';
import { DomainError } from '../../kernel/errors';
import { WRITE, defineOperation, type OperationContext } from '../../kernel/operation';
import type { Agent } from '../entities';
import { agentsIn } from '../repository';
import { AGENTS_WRITE } from '../requirements';
import { agentIdField } from '../schemas';
import { AGENT, agentView, cadenceText } from '../views';
import type { Effect } from '../../kernel/effect';
import { settingsOf, settingsText, type AgentBound, type Settings } from '../effects';
import { agentEffect, agentOf, described } from './setup';

const input = yup.object({ agentId: agentIdField });

/** An agent with nowhere to find work would run and do nothing: refused, naming `sources`. */
function mustHaveSources(a: Agent) {
  if (a.status === 'STOPPED')
    throw new DomainError('conflict', 'The agent is STOPPED: a stopped agent cannot start or run again.');
  const s = a.sources;
  const has =
    a.type === 'follow_up'
      ? Boolean(s.lead_statuses?.length || s.lead_sources?.length)
      : Boolean(s.prospect_lists?.length);
  if (!has)
    throw new DomainError(
      'invalid_request',
      a.type === 'follow_up'
        ? 'sources: a follow-up agent needs lead_statuses or lead_sources to find leads; configure them first.'
        : 'sources: a prospecting agent needs prospect_lists; configure them first.',
      { field: 'sources' },
    );
}

function mustBeStartable(a: Agent) {
  mustHaveSources(a);
  if (!a.cadence)
    throw new DomainError('invalid_request', 'cadence: the agent has no cadence; configure one first.', {
      field: 'cadence',
    });
}

/** Refused before a person is asked: a request that could only fail is never parked. */
const checked =
  (rule: (a: Agent) => void) =>
  async (i: { agentId: string }, look: Data): Promise<void> => {
    const a = await agentsIn(look).find(i.agentId);
    if (a && a.status !== 'ACTIVE') rule(a);
  };

/** The settings a person approves: from the call's effect when it has one, else read from the record. */
async function settingsFor(
  i: { agentId: string },
  look?: Data,
  effect?: Effect,
): Promise<Settings | undefined> {
  if (effect) return effect.bound as AgentBound;
  const a = look && (await agentsIn(look).find(i.agentId));
  return a ? settingsOf(a) : undefined;
}

const change = async (ctx: OperationContext, a: Agent, values: Partial<Agent>, resync = true) => {
  const changed = await agentsIn(ctx.data.in(a.workspace_id)).change(a.id, values, { resync });
  ctx.audit(a.workspace_id, { agent_id: a.id, from: a.status, to: changed.status });
  return agentView(changed);
};

export const startAgent = defineOperation({
  name: 'agent.start',
  title: 'Start an AI agent',
  description:
    "Starts a draft or paused agent: it runs at its cadence in the workspace's time zone (a Temporal schedule), within its limits and the sending window.",
  returns: 'The agent, now ACTIVE (once approved).',
  requirement: AGENTS_WRITE,
  reach: 'record',
  ...WRITE,
  idempotent: true,
  gated: true,
  openWorld: true,
  input,
  output: AGENT,
  doors: { mcp: true, admin: { command: 'agent start', flags: (f) => ({ agentId: f.id }) } },
  precondition: checked(mustBeStartable),
  effect: agentEffect,
  summary: async (i, look, effect) => {
    const a = await settingsFor(i, look, effect);
    const when = a?.cadence ? `, running ${cadenceText(a.cadence)}` : '';
    return `Start ${await described(i, look, effect)}${when}${a ? `, ${settingsText(a)}` : ''}`;
  },
  run: async (ctx, { agentId }) => {
    const a = await agentOf(ctx.data, agentId, { lock: true });
    if (a.status === 'ACTIVE') return agentView(a);
    mustBeStartable(a);
    return change(ctx, a, { status: 'ACTIVE' });
  },
});

export const runAgentNow = defineOperation({
  name: 'agent.run_now',
  title: 'Run an AI agent now',
  description: 'Runs an agent once now, outside its cadence (within its limits and the sending window).',
  returns: 'The agent; its run shows in agent.runs.',
  requirement: AGENTS_WRITE,
  reach: 'record',
  ...WRITE,
  gated: true,
  openWorld: true,
  input,
  output: AGENT,
  doors: { mcp: true, admin: { command: 'agent run-now', flags: (f) => ({ agentId: f.id }) } },
  precondition: checked(mustHaveSources),
  effect: agentEffect,
  summary: async (i, look, effect) => {
    const a = await settingsFor(i, look, effect);
    return `Run ${await described(i, look, effect)} once now${a ? `, ${settingsText(a)}` : ''}`;
  },
  run: async (ctx, { agentId }) => {
    const a = await agentOf(ctx.data, agentId, { lock: true });
    mustHaveSources(a);
    return change(ctx, a, { run_requested_at: new Date() });
  },
});

export const pauseAgent = defineOperation({
  name: 'agent.pause',
  title: 'Pause an AI agent',
  description:
    'Pauses an active agent at once: its schedule is paused and no further run starts until it is started again. Never needs approval. Pausing one already paused changes nothing.',
  returns: 'The agent, now PAUSED.',
  requirement: AGENTS_WRITE,
  reach: 'record',
  ...WRITE,
  idempotent: true,
  input,
  output: AGENT,
  doors: { mcp: true, admin: { command: 'agent pause', flags: (f) => ({ agentId: f.id }) } },
  summary: async (i, look) => `Pause ${await described(i, look)}`,
  run: async (ctx, { agentId }) => {
    const a = await agentOf(ctx.data, agentId, { lock: true });
    if (a.status === 'PAUSED') return agentView(a);
    if (a.status !== 'ACTIVE')
      throw new DomainError('conflict', `The agent is ${a.status}: only an active agent can be paused.`);
    return change(ctx, a, { status: 'PAUSED' });
  },
});

export const stopAgent = defineOperation({
  name: 'agent.stop',
  title: 'Stop an AI agent',
  description:
    'Stops an agent for good: its schedule is deleted and it never runs again (its runs and drafts stay readable). To stop it for a while, pause it instead.',
  returns: 'The agent, now STOPPED.',
  requirement: AGENTS_WRITE,
  reach: 'record',
  ...WRITE,
  destructive: true,
  idempotent: true,
  input,
  output: AGENT,
  doors: { mcp: true, admin: { command: 'agent stop', flags: (f) => ({ agentId: f.id }) } },
  summary: async (i, look) => `Stop ${await described(i, look)} for good`,
  run: async (ctx, { agentId }) => {
    const a = await agentOf(ctx.data, agentId, { lock: true });
    if (a.status === 'STOPPED') return agentView(a);
    return change(ctx, a, { status: 'STOPPED', run_requested_at: null });
  },
});
