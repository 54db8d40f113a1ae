import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { integer, number, object } from '../../kernel/shapes';
import { DELIVERABILITY_BOUNDS, deliverabilityOf, type DeliverabilityLimits } from '../deliverability';
import { workspacesIn } from '../repository/workspaces';

/** A limit within its bounds, the message naming the field and the range. */
function limit(field: keyof DeliverabilityLimits, description: string, whole = false) {
  const [least, most] = DELIVERABILITY_BOUNDS[field];
  const range = `${field} must be ${whole ? 'an integer ' : ''}between ${least} and ${most}`;
  const base = yup.number().typeError(range).min(least, range).max(most, range);
  return describe((whole ? base.integer(range) : base).optional(), description);
}

/**
 * The campaign brake's thresholds for this workspace, tightened within bounds (never looser than the
 * defaults mailbox providers hold senders to for complaints); a setting not given keeps its value.
 */
export const setDeliverability = defineOperation({
  name: 'workspace.set_deliverability',
  title: "Set the campaign brake's thresholds",
  description:
    'Sets when a running campaign pauses itself for deliverability: over at least min_sends sends, hard bounces above max_bounce_percent or spam complaints above max_complaint_percent. Each within its bounds; what is not given keeps its value.',
  returns: 'The thresholds now in force.',
  requirement: { scope: 'business:write', minRole: 'admin' },
  reach: 'workspace',
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
  input: yup.object({
    min_sends: limit('min_sends', 'Sends before the rates are judged (50 to 1,000; 100 by default).', true),
    max_bounce_percent: limit('max_bounce_percent', 'Hard bounces, % of sends (1 to 10; 5 by default).'),
    max_complaint_percent: limit(
      'max_complaint_percent',
      'Spam complaints, % of sends (0.05 to 0.3; 0.3 by default).',
    ),
  }),
  output: object({
    min_sends: integer({ minimum: 0 }),
    max_bounce_percent: number(),
    max_complaint_percent: number(),
  }),
  doors: {
    admin: {
      command: 'workspace deliverability',
      flags: (f) => ({
        min_sends: f['min-sends'],
        max_bounce_percent: f['max-bounce-percent'],
        max_complaint_percent: f['max-complaint-percent'],
      }),
    },
  },
  summary: () => "Set the campaign brake's thresholds",
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const workspaces = workspacesIn(ctx.data);
    const current = deliverabilityOf(await workspaces.named(workspaceId));
    const given = Object.fromEntries(Object.entries(i).filter(([, v]) => v !== undefined));
    const limits: DeliverabilityLimits = { ...current, ...given };
    await workspaces.setDeliverability(workspaceId, limits);
    ctx.audit(workspaceId, { ...limits });
    return limits;
  },
});
