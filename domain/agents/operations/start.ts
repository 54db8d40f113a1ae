import { WRITE, defineOperation } from '../../kernel/operation';
import { agentEffect, described, settingsFor, settingsText } from '../effects';
import { changeState, checked, mustBeStartable } from '../lifecycle';
import { agentOf } from '../repository/agents';
import { AGENTS_WRITE } from '../requirements';
import { agentIdInput } from '../schemas';
import { AGENT, agentView, cadenceText } from '../views';

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
  input: agentIdInput,
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
    if (a.status === 'ACTIVE') return agentView(a, ctx.services.jobNames);
    mustBeStartable(a);
    return changeState(ctx, a, { status: 'ACTIVE' });
  },
});
