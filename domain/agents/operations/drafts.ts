import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { pageSize } from '../../kernel/validate';
import { agentDraftsIn } from '../repository/drafts';
import { AGENTS_READ } from '../requirements';
import { DRAFTS, draftView } from '../views';

export const listDrafts = defineOperation({
  name: 'agent.drafts',
  title: "AI agents' drafts waiting for review",
  description:
    'Messages that agents at review level "draft" wrote and that wait for a person to send or discard them (from the admin tool), oldest first.',
  returns: '{ data: [draft], count }.',
  requirement: AGENTS_READ,
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({
    agentId: describe(yup.string().uuid('agentId must be a UUID'), "Only this agent's drafts."),
    limit: describe(pageSize(100), 'How many, 1 to 100 (default 25).'),
  }),
  output: DRAFTS,
  doors: {
    mcp: true,
    admin: { command: 'agent drafts', flags: (f) => ({ agentId: f.agent, limit: f.limit }) },
  },
  summary: () => "List the agents' drafts waiting for review",
  run: async (ctx, i) => {
    const rows = await agentDraftsIn(ctx.data).list({
      agentId: i.agentId,
      status: 'PENDING',
      limit: i.limit,
    });
    return { data: rows.map(draftView), count: rows.length };
  },
});
