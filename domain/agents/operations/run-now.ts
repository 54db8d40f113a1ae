import { WRITE, defineOperation } from '../../kernel/operation';
import { agentEffect, described, settingsFor, settingsText } from '../effects';
import { changeState, checked, mustHaveSources } from '../lifecycle';
import { agentOf } from '../repository/agents';
import { AGENTS_WRITE } from '../requirements';
import { agentIdInput } from '../schemas';
import { AGENT } from '../views';

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
  input: agentIdInput,
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
    return changeState(ctx, a, { run_requested_at: new Date() });
  },
});
