import * as yup from 'yup';
import { invalid } from '../../kernel/errors';
import { defineOperation, type OperationContext } from '../../kernel/operation';
import { ENDPOINT_CHANGE, lockEndpoint } from '../endpoint-changes';
import type { SigningScheme } from '../entities';
import { endpointsIn } from '../repository/endpoints';
import { endpointIdField, schemeField } from '../schemas';
import { readSecret } from '../secrets';
import { standardKey } from '../signing';
import { ENDPOINT, endpointView } from '../views';

/** Standard Webhooks' libraries decode the secret: a secret issued before it cannot sign that scheme. */
async function assertSchemeFits(ctx: OperationContext, endpointId: string, wanted: SigningScheme) {
  if (wanted === 'service') return;
  const ciphertext = await endpointsIn(ctx.data).secretOf(endpointId);
  // A secret SECRETS_KEY no longer opens signs nothing; a rotation replaces it too.
  const secret = ciphertext && readSecret(ciphertext, ctx.services.webhooks.secretsKey);
  if (!secret || !standardKey(secret))
    throw invalid(
      'scheme',
      `scheme ${wanted} needs a secret in Standard Webhooks' form, and this endpoint's predates it: rotate it with the scheme (endpoint rotate-secret --scheme ${wanted})`,
    );
}

/** Switches the signature headers; `standard` and `both` need a secret issued in Standard Webhooks' form. */
export const setEndpointScheme = defineOperation({
  ...ENDPOINT_CHANGE,
  name: 'endpoint.set_scheme',
  title: "Change an endpoint's signing scheme",
  description:
    "Switches the signature headers its deliveries carry (service, standard or both) from the next attempt on. An endpoint whose secret predates Standard Webhooks' form switches by rotating it (endpoint rotate-secret --scheme).",
  returns: 'The endpoint.',
  idempotent: true,
  input: yup.object({
    id: endpointIdField,
    scheme: schemeField.required('scheme is required (service, standard or both)'),
  }),
  output: ENDPOINT,
  doors: {
    admin: { command: 'endpoint set-scheme', flags: (f) => ({ id: f.id, scheme: f.scheme }) },
  },
  summary: (i) => `Sign the deliveries of endpoint ${i.id} by ${i.scheme}`,
  run: async (ctx, f) => {
    await lockEndpoint(ctx, f.id);
    await assertSchemeFits(ctx, f.id, f.scheme);
    const row = await endpointsIn(ctx.data).change(f.id, { signing_scheme: f.scheme });
    ctx.audit(row.workspace_id, { endpoint_id: f.id, scheme: f.scheme });
    return endpointView(row);
  },
});
