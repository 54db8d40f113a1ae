import * as yup from 'yup';
import { DomainError, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { defineOperation } from '../../kernel/operation';
import { ENDPOINT_CHANGE } from '../endpoint-changes';
import { deliveriesIn } from '../repository/deliveries';
import { endpointsIn } from '../repository/endpoints';
import { endpointIdField } from '../schemas';
import { RECOVERED } from '../views';

/**
 * A requeued delivery is a new ladder of attempts of the same event id: a new generation (its own
 * workflow) that continues the attempt count. The relay starts it.
 */
export const recoverEndpoint = defineOperation({
  name: 'endpoint.recover',
  title: "Requeue an endpoint's failed deliveries",
  description:
    'Requeues every delivery to the endpoint that gave up or was cancelled since a time, for example after its receiver was fixed.',
  returns: '{ endpoint_id, since, requeued, delivery_ids }.',
  ...ENDPOINT_CHANGE,
  idempotent: true,
  input: yup.object({
    id: endpointIdField,
    since: describe(
      yup.date().typeError('since must be an ISO 8601 time').required('since is required'),
      'Requeue deliveries created at or after this time (ISO 8601).',
    ),
  }),
  output: RECOVERED,
  doors: { admin: { command: 'endpoint recover', flags: (f) => ({ id: f.id, since: f.since }) } },
  summary: (i) => `Requeue the failed deliveries of endpoint ${i.id} since ${i.since.toISOString()}`,
  run: async (ctx, { id, since }) => {
    const endpoint = await endpointsIn(ctx.data).find(id);
    if (!endpoint) throw notFound('endpoint');
    if (endpoint.status !== 'ACTIVE')
      throw new DomainError('conflict', 'The endpoint is disabled; enable it before recovering deliveries.');
    const rows = await deliveriesIn(ctx.data).recover(id, since);
    ctx.audit(endpoint.workspace_id, { endpoint_id: id, requeued: rows.length });
    return {
      endpoint_id: id,
      since: since.toISOString(),
      requeued: rows.length,
      delivery_ids: rows.map((r) => r.id),
    };
  },
});
