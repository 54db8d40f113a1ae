import * as yup from 'yup';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { agentOf } from '../repository/agents';
import { AGENTS_READ } from '../requirements';
import { agentIdField } from '../schemas';
import { AGENT, agentView } from '../views';

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
    const schedule = await ctx.services.agents.schedule(a.id);
    return agentView(a, ctx.services.jobNames, schedule);
  },
});
