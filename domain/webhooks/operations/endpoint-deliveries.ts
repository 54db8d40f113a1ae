import * as yup from 'yup';
import { notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { pageSize } from '../../kernel/validate';
import { ENDPOINT_CHANGE } from '../endpoint-changes';
import { deliveriesIn } from '../repository/deliveries';
import { endpointsIn } from '../repository/endpoints';
import { endpointIdField } from '../schemas';
import { DELIVERY_LIST, deliveryView, withAttemptLog } from '../views';

/** One endpoint's delivery log: where its owner sees what was sent, how each attempt went, and what to resend. */
export const listEndpointDeliveries = defineOperation({
  ...ENDPOINT_CHANGE,
  ...READ_ONLY,
  name: 'endpoint.deliveries',
  title: "An endpoint's delivery log",
  description:
    'The deliveries to one endpoint, newest first, each with its attempts: when, how long, and what the receiver answered.',
  returns: '{ data: [delivery with attempt_log], count }.',
  input: yup.object({
    id: endpointIdField,
    limit: describe(pageSize(100), 'How many, 1 to 100 (default 25).'),
  }),
  output: DELIVERY_LIST,
  doors: {
    admin: {
      command: 'endpoint deliveries',
      flags: (f) => ({ id: f.id, limit: f.limit }),
      present: (out: { data: unknown }) => out.data,
    },
    console: true,
  },
  summary: (i) => `Read the delivery log of endpoint ${i.id}`,
  run: async (ctx, { id, limit }) => {
    const endpoint = await endpointsIn(ctx.data).find(id);
    if (!endpoint) throw notFound('endpoint');
    const deliveries = deliveriesIn(ctx.data.in(endpoint.workspace_id));
    const rows = await deliveries.list({ endpointId: id, limit });
    const data = withAttemptLog(
      rows,
      rows.map(deliveryView),
      await deliveries.attemptsOf(rows.map((r) => r.id)),
    );
    return { data, count: data.length };
  },
});
