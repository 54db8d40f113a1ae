import * as yup from 'yup';
import { ownerIdByEmail } from '../../identity';
import { invalid } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { defineOperation, flagList as list } from '../../kernel/operation';
import { emailSchema } from '../../kernel/validate';
import { ATTEMPT_TIMEOUT_MS } from '../delivery-rules';
import { ENDPOINT_CHANGE } from '../endpoint-changes';
import { endpointsIn } from '../repository/endpoints';
import { eventsField, schemeField } from '../schemas';
import { encryptSecret, generateSigningSecret } from '../secrets';
import { checkTarget } from '../url-policy';
import { ENDPOINT, endpointView } from '../views';

/** Creates an endpoint; its `whsec_` secret is returned here once and stored only encrypted. */
export const createEndpoint = defineOperation({
  ...ENDPOINT_CHANGE,
  name: 'endpoint.create',
  title: 'Create a webhook endpoint',
  description:
    'Adds an https endpoint that receives signed POSTs for the chosen event types; its target must resolve to public addresses.',
  returns: 'The endpoint and, this once, its signing secret (`secret`).',
  reach: 'workspace',
  input: yup.object({
    url: describe(
      yup.string().trim().required('url is required').max(2000, 'url must be at most 2000 characters'),
      'The https URL to POST to.',
    ),
    events: eventsField,
    ownerEmail: describe(emailSchema.optional(), 'The member told when the endpoint is disabled.'),
    scheme: schemeField,
  }),
  output: ENDPOINT,
  doors: {
    admin: {
      command: 'endpoint create',
      flags: (f) => ({ url: f.url, events: list(f.events), ownerEmail: f.owner, scheme: f.scheme }),
    },
    console: true,
  },
  summary: (i) => `Send ${i.events.join(', ')} to ${i.url}`,
  run: async (ctx, f) => {
    const deps = ctx.services.webhooks;
    const verdict = await checkTarget(f.url, deps.allowPrivateTargets, {
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    });
    if (!verdict.ok) throw invalid('url', `url is not allowed: ${verdict.reason}`);
    const workspaceId = ctx.workspaceId!;
    const ownerId = f.ownerEmail ? await ownerIdByEmail(ctx.data, f.ownerEmail, 'owner') : null;
    const secret = generateSigningSecret();
    const row = await endpointsIn(ctx.data).create({
      url: f.url,
      event_types: [...new Set(f.events)],
      owner_user_id: ownerId,
      secret_ciphertext: encryptSecret(secret, deps.secretsKey),
      signing_scheme: f.scheme ?? 'service',
    });
    ctx.audit(workspaceId, { endpoint_id: row.id, url: f.url });
    return { ...endpointView(row), secret };
  },
});
