import * as yup from 'yup';
import { TEST_EVENT_TYPE } from '../../kernel/event-catalogue';
import { defineOperation, flagList as list } from '../../kernel/operation';
import { ENDPOINT_CHANGE, cancelAfterCommit, changeEndpoint } from '../endpoint-changes';
import { deliveriesIn } from '../repository/deliveries';
import { endpointIdField, eventsField } from '../schemas';
import { ENDPOINT, endpointView } from '../views';

/** Changes the subscribed event types; waiting deliveries of a dropped type are cancelled. */
export const setEndpointEvents = defineOperation({
  ...ENDPOINT_CHANGE,
  name: 'endpoint.set_events',
  title: "Change an endpoint's event types",
  description:
    'Replaces the event types an endpoint receives; waiting deliveries of a dropped type are cancelled.',
  returns: 'The endpoint, with cancelled_deliveries.',
  idempotent: true,
  input: yup.object({ id: endpointIdField, events: eventsField }),
  output: ENDPOINT,
  doors: {
    admin: { command: 'endpoint set-events', flags: (f) => ({ id: f.id, events: list(f.events) }) },
  },
  summary: (i) => `Send ${i.events.join(', ')} to endpoint ${i.id}`,
  run: async (ctx, { id, events }) => {
    const row = await changeEndpoint(ctx, id, { event_types: [...new Set(events)] });
    // A test goes to the endpoint whatever it subscribes to.
    const cancelled = events.includes('*')
      ? []
      : await deliveriesIn(ctx.data).cancelWaiting(id, [...events, TEST_EVENT_TYPE]);
    cancelAfterCommit(ctx, cancelled);
    ctx.audit(row.workspace_id, { endpoint_id: id, events });
    return { ...endpointView(row), cancelled_deliveries: cancelled.length };
  },
});
