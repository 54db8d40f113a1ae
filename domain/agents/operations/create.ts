import { actorUserId } from '../../kernel/actor';
import { WRITE, defineOperation } from '../../kernel/operation';
import type { Agent, Limits } from '../entities';
import { agentsIn } from '../repository/agents';
import { AGENTS_WRITE } from '../requirements';
import { DEFAULT_LIMITS, agentFields, agentInput, checkSourcesFit, settingsFields } from '../schemas';
import { TEMPLATE_VERSION } from '../templates';
import { AGENT, agentView } from '../views';

export const createAgent = defineOperation({
  name: 'agent.create',
  title: 'Create an AI agent (draft)',
  description:
    "Creates an AI agent as a DRAFT: its type (follow_up or prospecting), and optionally its cadence, sources, limits and review level. It does nothing until it is started, which a person approves. Agents write from the service's versioned templates: no model, temperature, token budget or prompt can be set.",
  returns: 'The agent, status DRAFT.',
  requirement: AGENTS_WRITE,
  reach: 'workspace',
  ...WRITE,
  input: agentInput(
    {
      name: agentFields.name.required('name is required'),
      type: agentFields.type.required('type is required'),
      ...settingsFields,
    },
    'agent.create',
  ),
  output: AGENT,
  doors: {
    mcp: true,
    admin: {
      command: 'agent create',
      flags: (f) => ({ name: f.name, type: f.type, ...(f.review ? { review_level: f.review } : {}) }),
    },
  },
  summary: (i) => `Create the ${i.type} agent "${i.name}"`,
  run: async (ctx, i) => {
    const values = {
      name: i.name,
      type: i.type as Agent['type'],
      cadence: i.cadence ?? null,
      sources: i.sources ?? {},
      limits: { ...DEFAULT_LIMITS, ...i.limits } as Limits,
      review_level: i.review_level ?? 'draft',
    };
    checkSourcesFit(values);
    const a = await agentsIn(ctx.data).create({
      ...values,
      template_version: TEMPLATE_VERSION,
      created_by: actorUserId(ctx.actor),
    });
    ctx.audit(a.workspace_id, { agent_id: a.id, type: a.type });
    return agentView(a, ctx.services.jobNames);
  },
});
