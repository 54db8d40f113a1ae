import * as yup from 'yup';
import { defineOperation } from '../../kernel/operation';
import { ENDPOINT_CHANGE, switchOff } from '../endpoint-changes';
import { endpointIdField, switchOffReasonField } from '../schemas';
import { ENDPOINT } from '../views';

/** Disabling cancels the endpoint's waiting deliveries, records and workflows alike. */
export const disableEndpoint = defineOperation({
  ...ENDPOINT_CHANGE,
  name: 'endpoint.disable',
  title: 'Disable an endpoint',
  description: 'Switches an endpoint off with a reason; its waiting deliveries are cancelled.',
  returns: 'The endpoint, with cancelled_deliveries.',
  destructive: true,
  input: yup.object({ id: endpointIdField, reason: switchOffReasonField }),
  output: ENDPOINT,
  doors: {
    admin: { command: 'endpoint disable', flags: (f) => ({ id: f.id, reason: f.reason }) },
    console: true,
  },
  summary: (i) => `Disable endpoint ${i.id}`,
  run: (ctx, { id, reason }) => switchOff(ctx, id, 'DISABLED', reason ?? 'disabled by an operator'),
});
