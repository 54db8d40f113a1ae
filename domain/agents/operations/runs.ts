import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { pageSize } from '../../kernel/validate';
import { agentOf } from '../repository/agents';
import { agentRunsIn } from '../repository/runs';
import { AGENTS_READ } from '../requirements';
import { agentIdField } from '../schemas';
import { RUNS, runView } from '../views';

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
