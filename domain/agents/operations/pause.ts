import { DomainError } from '../../kernel/errors';
import { WRITE, defineOperation } from '../../kernel/operation';
import { described } from '../effects';
import { changeState } from '../lifecycle';
import { agentOf } from '../repository/agents';
import { AGENTS_WRITE } from '../requirements';
import { agentIdInput } from '../schemas';
import { AGENT, agentView } from '../views';

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
  input: agentIdInput,
  output: AGENT,
  doors: { mcp: true, admin: { command: 'agent pause', flags: (f) => ({ agentId: f.id }) } },
  summary: async (i, look) => `Pause ${await described(i, look)}`,
  run: async (ctx, { agentId }) => {
    const a = await agentOf(ctx.data, agentId, { lock: true });
    if (a.status === 'PAUSED') return agentView(a, ctx.services.jobNames);
    if (a.status !== 'ACTIVE')
      throw new DomainError('conflict', `The agent is ${a.status}: only an active agent can be paused.`);
    return changeState(ctx, a, { status: 'PAUSED' });
  },
});
