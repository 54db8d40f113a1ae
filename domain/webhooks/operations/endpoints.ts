import * as yup from 'yup';
import { memberIdByEmail } from '../../identity/rows';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../../kernel/event-catalogue';
import { emitEvent } from '../../kernel/events';
import { DomainError, invalid, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import {
  READ_ONLY,
  defineOperation,
  flagList as list,
  type OperationContext,
  type Services,
} from '../../kernel/operation';
import { arrayOf } from '../../kernel/shapes';
import { returning } from '../../kernel/sql';
import { emailSchema } from '../../kernel/validate';
import { cancelWaitingDeliveries } from '../cancel';
import { ENDPOINT, QUEUED_DELIVERY } from '../outputs';
import { ENDPOINT_COLUMNS, endpointView, type EndpointRow } from '../rows';
import { encryptSecret, generateSigningSecret } from '../secrets';
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

/** Endpoint management, all from the operator door (the application's settings). */
const common = {
  requirement: MANAGE_ENDPOINTS,
  reach: 'record',
  operatorOnly: true,
  changes: true,
  gated: false,
} as const;

function webhookServices(services: Services) {
  if (!services.webhooks)
    throw new Error('webhook endpoint operations need the webhooks services at this door');
  return services.webhooks;
}

/** Locks an endpoint of the caller's workspace (any, for the operator) for a change. */
async function lockEndpoint(ctx: OperationContext, endpointId: string): Promise<EndpointRow> {
  const [row] = await ctx.m.query<EndpointRow[]>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints
      WHERE id = $1 AND status <> 'DELETED' AND ($2::uuid IS NULL OR workspace_id = $2) FOR UPDATE`,
    [endpointId, ctx.workspaceId ?? null],
  );
  if (!row) throw notFound('endpoint');
  return row;
}

async function update(ctx: OperationContext, endpointId: string, sql: string, params: unknown[]) {
  await lockEndpoint(ctx, endpointId);
  const [row] = await returning<EndpointRow>(
    ctx.m,
    `UPDATE webhook_endpoints SET ${sql}, updated_at = clock_timestamp() WHERE id = $1 RETURNING ${ENDPOINT_COLUMNS}`,
    [endpointId, ...params],
  );
  return row!;
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
  destructive: false,
  idempotent: false,
  input: yup.object({
    url: describe(
      yup.string().trim().required('url is required').max(2000, 'url must be at most 2000 characters'),
      'The https URL to POST to.',
    ),
    events,
    ownerEmail: describe(emailSchema.optional(), 'The member told when the endpoint is disabled.'),
  }),
  output: ENDPOINT,
  doors: {
    admin: {
      command: 'endpoint create',
      flags: (f) => ({ url: f.url, events: list(f.events), ownerEmail: f.owner }),
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
    const ownerId = f.ownerEmail ? await memberIdByEmail(ctx.m, workspaceId, f.ownerEmail, 'owner') : null;
    const secret = generateSigningSecret();
    const [row] = await ctx.m.query<EndpointRow[]>(
      `INSERT INTO webhook_endpoints (workspace_id, url, event_types, owner_user_id, secret_ciphertext)
       VALUES ($1, $2, $3, $4, $5) RETURNING ${ENDPOINT_COLUMNS}`,
      [workspaceId, f.url, [...new Set(f.events)], ownerId, encryptSecret(secret, deps.secretsKey)],
    );
    ctx.audit(workspaceId, { endpoint_id: row!.id, url: f.url });
    return { ...endpointView(row!), secret };
  },
});

/** A new secret, effective at once with no overlap; shown once. */
export const rotateEndpointSecret = defineOperation({
  ...common,
  name: 'endpoint.rotate_secret',
  title: "Rotate an endpoint's signing secret",
  description: 'Replaces the signing secret at once, with no overlap period.',
  returns: 'The endpoint and, this once, the new secret (`secret`).',
  destructive: true,
  idempotent: false,
  input: yup.object({ id }),
  output: ENDPOINT,
  doors: { admin: { command: 'endpoint rotate-secret', flags: (f) => ({ id: f.id }) } },
  summary: (i) => `Rotate the signing secret of endpoint ${i.id}`,
  run: async (ctx, { id }) => {
    const secret = generateSigningSecret();
    const row = await update(ctx, id, 'secret_ciphertext = $2', [
      encryptSecret(secret, webhookServices(ctx.services).secretsKey),
    ]);
    ctx.audit(row.workspace_id, { endpoint_id: id });
    return { ...endpointView(row), secret };
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
  destructive: false,
  idempotent: true,
  input: yup.object({ id }),
  output: ENDPOINT,
  doors: { admin: { command: 'endpoint enable', flags: (f) => ({ id: f.id }) } },
  summary: (i) => `Enable endpoint ${i.id}`,
  run: async (ctx, { id }) => {
    const row = await update(
      ctx,
      id,
      `status = 'ACTIVE', disabled_reason = NULL, consecutive_failures = 0`,
      [],
    );
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
    idempotent: false,
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
      const row = await update(ctx, id, 'status = $2, disabled_reason = $3', [
        deleted ? 'DELETED' : 'DISABLED',
        reason ?? (deleted ? 'deleted by an operator' : 'disabled by an operator'),
      ]);
      const workflows = await cancelWaitingDeliveries(ctx.m, id);
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
  destructive: false,
  idempotent: true,
  input: yup.object({ id, events }),
  output: ENDPOINT,
  doors: {
    admin: { command: 'endpoint set-events', flags: (f) => ({ id: f.id, events: list(f.events) }) },
  },
  summary: (i) => `Send ${i.events.join(', ')} to endpoint ${i.id}`,
  run: async (ctx, { id, events }) => {
    const row = await update(ctx, id, 'event_types = $2', [[...new Set(events)]]);
    let workflows: string[] = [];
    if (!events.includes('*')) {
      const waitingTypes = await ctx.m.query<{ event_type: string }[]>(
        `SELECT DISTINCT event_type FROM webhook_deliveries WHERE endpoint_id = $1 AND status IN ('PENDING', 'FAILED')`,
        [id],
      );
      const dropped = waitingTypes
        .map((t) => t.event_type)
        .filter((t) => t !== TEST_EVENT_TYPE && !events.includes(t));
      if (dropped.length > 0) workflows = await cancelWaitingDeliveries(ctx.m, id, dropped);
    }
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
  run: async (ctx) => {
    const rows = await ctx.m.query<EndpointRow[]>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE workspace_id = $1 AND status <> 'DELETED' ORDER BY created_at DESC`,
      [ctx.workspaceId],
    );
    return rows.map(endpointView);
  },
});

/** Sends `endpoint.test` to this endpoint only, through the same outbox, relay and workflow as every event. */
export const testEndpoint = defineOperation({
  ...common,
  name: 'endpoint.send_test',
  title: 'Send a test event',
  description: 'Queues the separate event type endpoint.test to this endpoint only, never a fake real event.',
  returns: 'The queued delivery.',
  destructive: false,
  idempotent: false,
  input: yup.object({ id }),
  output: QUEUED_DELIVERY,
  doors: { admin: { command: 'endpoint test', flags: (f) => ({ id: f.id }) } },
  summary: (i) => `Send a test event to endpoint ${i.id}`,
  run: async (ctx, { id }) => {
    const endpoint = await lockEndpoint(ctx, id);
    if (endpoint.status !== 'ACTIVE')
      throw new DomainError('conflict', 'The endpoint is disabled; enable it before testing.');
    // The runner's emit fans out to every subscriber; a test goes to this endpoint alone.
    const eventId = await emitEvent(
      ctx.m,
      endpoint.workspace_id,
      TEST_EVENT_TYPE,
      { type: 'endpoint', id },
      { endpoint_id: id },
      { endpointId: id },
    );
    const [delivery] = await ctx.m.query<{ id: string; status: string; created_at: Date }[]>(
      `SELECT id, status, created_at FROM webhook_deliveries WHERE event_id = $1`,
      [eventId],
    );
    ctx.audit(endpoint.workspace_id, { endpoint_id: id, event_id: eventId });
    return {
      id: delivery!.id,
      event_id: eventId,
      type: TEST_EVENT_TYPE,
      endpoint_id: id,
      status: delivery!.status,
      created_at: delivery!.created_at.toISOString(),
    };
  },
});
