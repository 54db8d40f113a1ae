import * as yup from 'yup';
import { defineOperation } from '../../kernel/operation';
import { ENDPOINT_CHANGE, switchOff } from '../endpoint-changes';
import { endpointIdField, switchOffReasonField } from '../schemas';
import { ENDPOINT } from '../views';

/** Deleting cancels the endpoint's waiting deliveries, records and workflows alike. */
export const deleteEndpoint = defineOperation({
  ...ENDPOINT_CHANGE,
  name: 'endpoint.delete',
  title: 'Delete an endpoint',
  description: 'Deletes an endpoint; its waiting deliveries are cancelled.',
  returns: 'The endpoint, with cancelled_deliveries.',
  destructive: true,
  input: yup.object({ id: endpointIdField, reason: switchOffReasonField }),
  output: ENDPOINT,
  doors: {
    admin: { command: 'endpoint delete', flags: (f) => ({ id: f.id, reason: f.reason }) },
    console: true,
  },
  summary: (i) => `Delete endpoint ${i.id}`,
  run: (ctx, { id, reason }) => switchOff(ctx, id, 'DELETED', reason ?? 'deleted by an operator'),
});
