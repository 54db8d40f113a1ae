import * as yup from 'yup';
import { DomainError, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { defineOperation } from '../../kernel/operation';
import { ENDPOINT_CHANGE } from '../endpoint-changes';
import { deliveriesIn } from '../repository/deliveries';
import { RESENT } from '../views';

/**
 * A requeued delivery is a new ladder of attempts of the same event id: a new generation (its own
 * workflow) that continues the attempt count. The relay starts it.
 */
export const resendDelivery = defineOperation({
  name: 'delivery.resend',
  title: 'Resend a delivery',
  description:
    'Sends a delivery that gave up or was cancelled again, as a new ladder of attempts of the same event id (receivers dedupe on it).',
  returns: '{ id, status: PENDING, generation }.',
  ...ENDPOINT_CHANGE,
  input: yup.object({
    id: describe(yup.string().uuid('id must be a UUID').required('id is required'), 'The delivery id.'),
  }),
  output: RESENT,
  doors: { admin: { command: 'delivery resend', flags: (f) => ({ id: f.id }) }, console: true },
  summary: (i) => `Resend delivery ${i.id}`,
  run: async (ctx, { id }) => {
    const deliveries = deliveriesIn(ctx.data);
    const current = await deliveries.lock(id);
    if (!current) throw notFound('delivery');
    const rows = await deliveries.resend(id);
    if (rows.length === 0) {
      throw new DomainError(
        'conflict',
        `Only a delivery that gave up or was cancelled, to an enabled endpoint, can be resent (this one is ${current.status}).`,
      );
    }
    ctx.audit(current.workspace_id, { delivery_id: id });
    return { id, status: 'PENDING', generation: rows[0]!.generation };
  },
});
