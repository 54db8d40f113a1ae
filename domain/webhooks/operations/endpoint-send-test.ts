import * as yup from 'yup';
import { TEST_EVENT_TYPE } from '../../kernel/event-catalogue';
import { DomainError } from '../../kernel/errors';
import { defineOperation } from '../../kernel/operation';
import { ENDPOINT_CHANGE, lockEndpoint } from '../endpoint-changes';
import { deliveriesIn } from '../repository/deliveries';
import { endpointIdField } from '../schemas';
import { QUEUED_DELIVERY } from '../views';

/** Sends `endpoint.test` to this endpoint only, through the same outbox, relay and workflow as every event. */
export const testEndpoint = defineOperation({
  ...ENDPOINT_CHANGE,
  name: 'endpoint.send_test',
  title: 'Send a test event',
  description: 'Queues the separate event type endpoint.test to this endpoint only, never a fake real event.',
  returns: 'The queued delivery.',
  input: yup.object({ id: endpointIdField }),
  output: QUEUED_DELIVERY,
  doors: { admin: { command: 'endpoint test', flags: (f) => ({ id: f.id }) }, console: true },
  summary: (i) => `Send a test event to endpoint ${i.id}`,
  run: async (ctx, { id }) => {
    const endpoint = await lockEndpoint(ctx, id);
    if (endpoint.status !== 'ACTIVE')
      throw new DomainError('conflict', 'The endpoint is disabled; enable it before testing.');
    const { eventId, delivery } = await deliveriesIn(ctx.data).queueTest(endpoint.workspace_id, id);
    ctx.audit(endpoint.workspace_id, { endpoint_id: id, event_id: eventId });
    return {
      id: delivery.id,
      event_id: eventId,
      type: TEST_EVENT_TYPE,
      endpoint_id: id,
      status: delivery.status,
      created_at: delivery.created_at.toISOString(),
    };
  },
});
