import { READ_ONLY, defineOperation } from '../../kernel/operation';
import type { Requirement } from '../../kernel/permissions';
import { deliveriesIn } from '../repository/deliveries';
import { deliveryParamsSchema } from '../schemas';
import { DELIVERY_LIST, deliveryView, withAttemptLog } from '../views';
import { AREA } from '../area';

const READ_DELIVERIES: Requirement = { scope: 'business:read', minRole: 'viewer' };

/** Deliveries of a workspace, newest first; the operator also sees the endpoint and every attempt. */
export const listDeliveries = defineOperation({
  name: 'delivery.list',
  title: 'List webhook deliveries',
  description:
    "The workspace's webhook deliveries, newest first, each with the event payload that was sent; never an endpoint URL or secret.",
  returns: '{ data: [delivery], count }.',
  requirement: READ_DELIVERIES,
  reach: 'workspace',
  ...READ_ONLY,
  input: deliveryParamsSchema,
  output: DELIVERY_LIST,
  doors: {
    rest: { method: 'get', path: '/events', operationId: 'listDeliveries', area: AREA },
    admin: {
      command: 'delivery list',
      flags: (f) => ({ type: f.type, status: f.status, limit: f.limit }),
      present: (out: { data: unknown }) => out.data,
    },
  },
  summary: () => 'List webhook deliveries',
  run: async (ctx, p) => {
    const deliveries = deliveriesIn(ctx.data);
    const rows = await deliveries.list(p);
    // Lead contact details inside payloads are for keys that may read leads; the rest see ids, types, times.
    const redact = ctx.actor.type === 'key' && !ctx.actor.principal.scopes.includes('leads:read');
    const data = rows.map((r) => (redact ? withoutContact(deliveryView(r)) : deliveryView(r)));
    if (ctx.actor.type !== 'operator') return { data, count: data.length };
    return {
      data: withAttemptLog(rows, data, await deliveries.attemptsOf(rows.map((r) => r.id))),
      count: data.length,
    };
  },
});

const CONTACT_FIELDS = ['first_name', 'last_name', 'email', 'phone', 'postcode'];

/** A delivery record whose payload keeps everything but the lead's contact details, and says so. */
function withoutContact(record: ReturnType<typeof deliveryView>) {
  const payload = record.payload as { data?: Record<string, unknown> };
  const data = Object.fromEntries(
    Object.entries(payload.data ?? {}).filter(([k]) => !CONTACT_FIELDS.includes(k)),
  );
  return { ...record, payload: { ...payload, data }, payload_redacted: true as const };
}
