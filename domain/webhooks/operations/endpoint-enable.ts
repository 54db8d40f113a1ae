import * as yup from 'yup';
import { defineOperation } from '../../kernel/operation';
import { ENDPOINT_CHANGE, changeEndpoint } from '../endpoint-changes';
import { endpointIdField } from '../schemas';
import { ENDPOINT, endpointView } from '../views';

/** Re-enabling resets the count of failed deliveries in a row. */
export const enableEndpoint = defineOperation({
  ...ENDPOINT_CHANGE,
  name: 'endpoint.enable',
  title: 'Enable an endpoint',
  description:
    'Switches an endpoint on again (after its receiver was fixed) and resets its count of failures in a row.',
  returns: 'The endpoint.',
  idempotent: true,
  input: yup.object({ id: endpointIdField }),
  output: ENDPOINT,
  doors: { admin: { command: 'endpoint enable', flags: (f) => ({ id: f.id }) }, console: true },
  summary: (i) => `Enable endpoint ${i.id}`,
  run: async (ctx, { id }) => {
    const row = await changeEndpoint(ctx, id, {
      status: 'ACTIVE',
      disabled_reason: null,
      consecutive_failures: 0,
    });
    ctx.audit(row.workspace_id, { endpoint_id: id });
    return endpointView(row);
  },
});
