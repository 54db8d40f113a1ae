import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { pageSize } from '../../kernel/validate';
import { AGENT_STATUSES } from '../entities';
import { agentsIn } from '../repository/agents';
import { AGENTS_READ } from '../requirements';
import { AGENTS, agentView } from '../views';

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
    return { data: rows.map((a) => agentView(a, ctx.services.jobNames)), count: rows.length };
  },
});
