import { WRITE, defineOperation } from '../../kernel/operation';
import { described } from '../effects';
import { changeState } from '../lifecycle';
import { agentOf } from '../repository/agents';
import { AGENTS_WRITE } from '../requirements';
import { agentIdInput } from '../schemas';
import { AGENT, agentView } from '../views';

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
  input: agentIdInput,
  output: AGENT,
  doors: { mcp: true, admin: { command: 'agent stop', flags: (f) => ({ agentId: f.id }) } },
  summary: async (i, look) => `Stop ${await described(i, look)} for good`,
  run: async (ctx, { agentId }) => {
    const a = await agentOf(ctx.data, agentId, { lock: true });
    if (a.status === 'STOPPED') return agentView(a, ctx.services.jobNames);
    return changeState(ctx, a, { status: 'STOPPED', run_requested_at: null });
  },
});
