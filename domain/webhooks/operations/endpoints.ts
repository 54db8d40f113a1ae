import * as yup from 'yup';
import { ownerIdByEmail } from '../../identity';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../../kernel/event-catalogue';
import { DomainError, invalid, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import {
  READ_ONLY,
  WRITE,
  defineOperation,
  flagList as list,
  type OperationContext,
  type Services,
} from '../../kernel/operation';
import { arrayOf } from '../../kernel/shapes';
import { emailSchema } from '../../kernel/validate';
import type { Changes } from '../../kernel/data';
import { SIGNING_SCHEMES, type Endpoint, type SigningScheme } from '../entities';
import { ENDPOINT, QUEUED_DELIVERY, endpointView } from '../views';
import { deliveriesIn } from '../repository/deliveries';
import { endpointsIn, type EndpointRecord } from '../repository/endpoints';
import { encryptSecret, generateSigningSecret, readSecret } from '../secrets';
import { standardKey } from '../signing';
import { checkTarget } from '../url-policy';
import { ATTEMPT_TIMEOUT_MS } from '../delivery-rules';
import { MANAGE_ENDPOINTS } from './deliveries';

const events = describe(
  yup
    .array(
      yup
        .string()
        .required()
        .oneOf(
          ['*', ...EVENT_TYPES],
          (p: { value: unknown }) => `${String(p.value)} is not an event type (see the catalogue, or use *)`,
        ),
    )
    .min(1, 'events must name at least one event type, or *')
    .required('events is required (comma-separated event types, or *)'),
  'The event types it receives, or * for all.',
);
const id = describe(yup.string().uuid('id must be a UUID').required('id is required'), 'The endpoint id.');
const scheme = describe(
  yup
    .string()
    .oneOf(SIGNING_SCHEMES, `scheme must be one of ${SIGNING_SCHEMES.join(', ')}`)
    .optional(),
  'The signature headers its deliveries carry: service (service-signature), standard (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature) or both.',
);

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** The longest a replaced secret keeps signing beside the new one (as at Stripe). */
const MAX_OVERLAP_MS = 7 * UNIT_MS.d;
/** `0`, or a whole number of seconds, minutes, hours or days (`90s`, `30m`, `24h`, `7d`), at most 7 days. */
function overlapMs(text: string): number | undefined {
  if (text === '0') return 0;
  const m = /^(\d{1,7})([smhd])$/.exec(text);
  const ms = m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : undefined;
  return ms !== undefined && ms <= MAX_OVERLAP_MS ? ms : undefined;
}
const overlap = describe(
  yup
    .string()
    .trim()
    .optional()
    .test(
      'overlap',
      'overlap must be 0 or a duration such as 90s, 30m, 24h or 7d, at most 7d',
      (v) => v === undefined || overlapMs(v) !== undefined,
    ),
  'How long the old secret keeps signing beside the new one: 0 (the default: it stops at once), or a duration such as 90s, 30m, 24h, up to 7d.',
);

/** Standard Webhooks' libraries decode the secret: a secret issued before it cannot sign that scheme. */
async function assertSchemeFits(ctx: OperationContext, endpointId: string, wanted: SigningScheme) {
  if (wanted === 'service') return;
  const ciphertext = await endpointsIn(ctx.data).secretOf(endpointId);
  // A secret SECRETS_KEY no longer opens signs nothing; a rotation replaces it too.
  const secret = ciphertext && readSecret(ciphertext, webhookServices(ctx.services).secretsKey);
  if (!secret || !standardKey(secret))
    throw invalid(
      'scheme',
      `scheme ${wanted} needs a secret in Standard Webhooks' form, and this endpoint's predates it: rotate it with the scheme (endpoint rotate-secret --scheme ${wanted})`,
    );
}

/** Endpoint management, all from the operator door (the application's settings). */
const common = {
  ...WRITE,
  requirement: MANAGE_ENDPOINTS,
  reach: 'record',
  operatorOnly: true,
} as const;

function webhookServices(services: Services) {
  if (!services.webhooks)
    throw new Error('webhook endpoint operations need the webhooks services at this door');
  return services.webhooks;
}

/** Locks an endpoint of the caller's workspace (any, for the operator) for a change. */
async function lockEndpoint(ctx: OperationContext, endpointId: string): Promise<EndpointRecord> {
  const row = await endpointsIn(ctx.data).lock(endpointId);
  if (!row) throw notFound('endpoint');
  return row;
}

async function update(ctx: OperationContext, endpointId: string, changes: Changes<Endpoint>) {
  await lockEndpoint(ctx, endpointId);
  return endpointsIn(ctx.data).change(endpointId, changes);
}

/** Cancels the waiting deliveries' workflows once the rows saying so have committed. */
function cancelAfterCommit(ctx: OperationContext, workflows: string[]) {
  if (workflows.length > 0) ctx.afterCommit(() => webhookServices(ctx.services).cancelWorkflows(workflows));
}

/** Creates an endpoint; its `whsec_` secret is returned here once and stored only encrypted. */
export const createEndpoint = defineOperation({
  ...common,
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
    events,
    ownerEmail: describe(emailSchema.optional(), 'The member told when the endpoint is disabled.'),
    scheme,
  }),
  output: ENDPOINT,
  doors: {
    admin: {
      command: 'endpoint create',
      flags: (f) => ({ url: f.url, events: list(f.events), ownerEmail: f.owner, scheme: f.scheme }),
    },
  },
  summary: (i) => `Send ${i.events.join(', ')} to ${i.url}`,
  run: async (ctx, f) => {
    const deps = webhookServices(ctx.services);
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

/**
 * A new secret, shown once. With an overlap the old one keeps signing beside it until then (each
 * delivery carries both signatures), so receivers can switch in their own time; a second rotation
 * during an overlap ends the oldest secret at once. The reconciler destroys the old one after.
 */
export const rotateEndpointSecret = defineOperation({
  ...common,
  name: 'endpoint.rotate_secret',
  title: "Rotate an endpoint's signing secret",
  description:
    'Issues a new signing secret. With overlap, the old one also signs every delivery until the overlap ends; without, it stops at once. Can switch the signing scheme in the same step.',
  returns: 'The endpoint and, this once, the new secret (`secret`).',
  destructive: true,
  input: yup.object({ id, overlap, scheme }),
  output: ENDPOINT,
  doors: {
    admin: {
      command: 'endpoint rotate-secret',
      flags: (f) => ({ id: f.id, overlap: f.overlap, scheme: f.scheme }),
    },
  },
  summary: (i) =>
    `Rotate the signing secret of endpoint ${i.id}` +
    (i.overlap && i.overlap !== '0' ? `, the old one signing for ${i.overlap} more` : ', at once') +
    (i.scheme ? `, signing by ${i.scheme}` : ''),
  run: async (ctx, f) => {
    const key = webhookServices(ctx.services).secretsKey;
    await lockEndpoint(ctx, f.id);
    const ms = overlapMs(f.overlap ?? '0')!;
    const now = ctx.services.clock?.() ?? new Date();
    const old = ms > 0 ? await endpointsIn(ctx.data).secretOf(f.id) : undefined;
    const secret = generateSigningSecret();
    const row = await endpointsIn(ctx.data).change(f.id, {
      secret_ciphertext: encryptSecret(secret, key),
      previous_secret_ciphertext: old ?? null,
      previous_secret_expires_at: old ? new Date(now.getTime() + ms) : null,
      ...(f.scheme ? { signing_scheme: f.scheme } : {}),
    });
    ctx.audit(row.workspace_id, { endpoint_id: f.id, overlap_ms: ms, scheme: row.signing_scheme });
    return { ...endpointView(row), secret };
  },
});

/** Switches the signature headers; `standard` and `both` need a secret issued in Standard Webhooks' form. */
export const setEndpointScheme = defineOperation({
  ...common,
  name: 'endpoint.set_scheme',
  title: "Change an endpoint's signing scheme",
  description:
    "Switches the signature headers its deliveries carry (service, standard or both) from the next attempt on. An endpoint whose secret predates Standard Webhooks' form switches by rotating it (endpoint rotate-secret --scheme).",
  returns: 'The endpoint.',
  idempotent: true,
  input: yup.object({ id, scheme: scheme.required('scheme is required (service, standard or both)') }),
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

/** Re-enabling resets the count of failed deliveries in a row. */
export const enableEndpoint = defineOperation({
  ...common,
  name: 'endpoint.enable',
  title: 'Enable an endpoint',
  description:
    'Switches an endpoint on again (after its receiver was fixed) and resets its count of failures in a row.',
  returns: 'The endpoint.',
  idempotent: true,
  input: yup.object({ id }),
  output: ENDPOINT,
  doors: { admin: { command: 'endpoint enable', flags: (f) => ({ id: f.id }) } },
  summary: (i) => `Enable endpoint ${i.id}`,
  run: async (ctx, { id }) => {
    const row = await update(ctx, id, { status: 'ACTIVE', disabled_reason: null, consecutive_failures: 0 });
    ctx.audit(row.workspace_id, { endpoint_id: id });
    return endpointView(row);
  },
});

/** Disabling (or deleting) cancels the endpoint's waiting deliveries, records and workflows alike. */
const switchOff = (deleted: boolean) =>
  defineOperation({
    ...common,
    name: deleted ? 'endpoint.delete' : 'endpoint.disable',
    title: deleted ? 'Delete an endpoint' : 'Disable an endpoint',
    description: deleted
      ? 'Deletes an endpoint; its waiting deliveries are cancelled.'
      : 'Switches an endpoint off with a reason; its waiting deliveries are cancelled.',
    returns: 'The endpoint, with cancelled_deliveries.',
    destructive: true,
    input: yup.object({ id, reason: describe(yup.string().max(500).optional(), 'Why, for its owner.') }),
    output: ENDPOINT,
    doors: {
      admin: {
        command: deleted ? 'endpoint delete' : 'endpoint disable',
        flags: (f) => ({ id: f.id, reason: f.reason }),
      },
    },
    summary: (i) => `${deleted ? 'Delete' : 'Disable'} endpoint ${i.id}`,
    run: async (ctx, { id, reason }) => {
      const row = await update(ctx, id, {
        status: deleted ? 'DELETED' : 'DISABLED',
        disabled_reason: reason ?? (deleted ? 'deleted by an operator' : 'disabled by an operator'),
      });
      const workflows = await deliveriesIn(ctx.data).cancelWaiting(id);
      cancelAfterCommit(ctx, workflows);
      ctx.audit(row.workspace_id, { endpoint_id: id, cancelled: workflows.length });
      return { ...endpointView(row), cancelled_deliveries: workflows.length };
    },
  });
export const disableEndpoint = switchOff(false);
export const deleteEndpoint = switchOff(true);

/** Changes the subscribed event types; waiting deliveries of a dropped type are cancelled. */
export const setEndpointEvents = defineOperation({
  ...common,
  name: 'endpoint.set_events',
  title: "Change an endpoint's event types",
  description:
    'Replaces the event types an endpoint receives; waiting deliveries of a dropped type are cancelled.',
  returns: 'The endpoint, with cancelled_deliveries.',
  idempotent: true,
  input: yup.object({ id, events }),
  output: ENDPOINT,
  doors: {
    admin: { command: 'endpoint set-events', flags: (f) => ({ id: f.id, events: list(f.events) }) },
  },
  summary: (i) => `Send ${i.events.join(', ')} to endpoint ${i.id}`,
  run: async (ctx, { id, events }) => {
    const row = await update(ctx, id, { event_types: [...new Set(events)] });
    // A test goes to the endpoint whatever it subscribes to.
    const workflows = events.includes('*')
      ? []
      : await deliveriesIn(ctx.data).cancelWaiting(id, [...events, TEST_EVENT_TYPE]);
    cancelAfterCommit(ctx, workflows);
    ctx.audit(row.workspace_id, { endpoint_id: id, events });
    return { ...endpointView(row), cancelled_deliveries: workflows.length };
  },
});

export const listEndpoints = defineOperation({
  ...common,
  name: 'endpoint.list',
  title: 'List webhook endpoints',
  description: "The workspace's endpoints, newest first; never their secrets.",
  returns: 'Endpoints.',
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({}),
  output: arrayOf(ENDPOINT),
  doors: { admin: { command: 'endpoint list' } },
  summary: () => 'List webhook endpoints',
  run: async (ctx) => (await endpointsIn(ctx.data).list()).map(endpointView),
});

/** Sends `endpoint.test` to this endpoint only, through the same outbox, relay and workflow as every event. */
export const testEndpoint = defineOperation({
  ...common,
  name: 'endpoint.send_test',
  title: 'Send a test event',
  description: 'Queues the separate event type endpoint.test to this endpoint only, never a fake real event.',
  returns: 'The queued delivery.',
  input: yup.object({ id }),
  output: QUEUED_DELIVERY,
  doors: { admin: { command: 'endpoint test', flags: (f) => ({ id: f.id }) } },
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
