import type { DataSource } from 'typeorm';
import * as yup from 'yup';
import { authorize, type Actor } from '../actor';
import { operationAudit, writeAudit } from '../audit';
import { DomainError, invalid, notFound } from '../errors';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../events/catalogue';
import { emitEvent } from '../events/emit';
import type { Requirement } from '../policy';
import { returning } from '../sql';
import { emailSchema, validate } from '../validate';
import { cancelWaitingDeliveries } from '../webhooks/cancel';
import { encryptSecret, generateSigningSecret } from '../webhooks/secrets';
import { checkTarget } from '../webhooks/url-policy';
import type { WorkflowCanceller } from '../webhooks/workflow-ids';

/** Endpoints are managed from the admin CLI (the application's settings); a key would need this. */
const MANAGE: Requirement = { scope: 'business:write', minRole: 'admin' };

export type EndpointDeps = {
  secretsKey: Buffer;
  allowPrivateTargets: boolean;
  cancelWorkflows: WorkflowCanceller;
};

type EndpointRow = {
  id: string;
  workspace_id: string;
  url: string;
  event_types: string[];
  owner_user_id: string | null;
  status: string;
  disabled_reason: string | null;
  consecutive_failures: number;
  created_at: Date;
  updated_at: Date;
};
const COLUMNS = `id, workspace_id, url, event_types, owner_user_id, status, disabled_reason, consecutive_failures, created_at, updated_at`;

/** Never the secret. */
const endpointView = (e: EndpointRow) => ({
  id: e.id,
  workspace_id: e.workspace_id,
  url: e.url,
  events: e.event_types,
  owner_user_id: e.owner_user_id,
  status: e.status,
  disabled_reason: e.disabled_reason,
  consecutive_failures: e.consecutive_failures,
  created_at: e.created_at.toISOString(),
  updated_at: e.updated_at.toISOString(),
});

const eventsSchema = yup
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
  .required('events is required (comma-separated event types, or *)');
const idSchema = yup.object({ id: yup.string().uuid('id must be a UUID').required('id is required') });

async function assertTargetAllowed(url: string, deps: EndpointDeps) {
  const verdict = await checkTarget(url, deps.allowPrivateTargets);
  if (!verdict.ok) throw invalid('url', `url is not allowed: ${verdict.reason}`);
}

async function update(db: DataSource, id: string, sql: string, params: unknown[]) {
  const [row] = await returning<EndpointRow>(
    db,
    `UPDATE webhook_endpoints SET ${sql}, updated_at = clock_timestamp() WHERE id = $1 AND status <> 'DELETED' RETURNING ${COLUMNS}`,
    [id, ...params],
  );
  if (!row) throw notFound('endpoint');
  return row;
}

/** Creates an endpoint; its `whsec_` secret is returned here once and stored only encrypted. */
export async function createEndpoint(db: DataSource, actor: Actor, input: unknown, deps: EndpointDeps) {
  authorize(actor, MANAGE);
  const f = validate(
    yup.object({
      workspaceId: yup.string().uuid('workspace must be a UUID').required('workspace is required'),
      url: yup.string().trim().required('url is required').max(2000, 'url must be at most 2000 characters'),
      events: eventsSchema,
      ownerEmail: emailSchema.optional(),
    }),
    input,
  );
  await assertTargetAllowed(f.url, deps);
  const secret = generateSigningSecret();
  return db.transaction(async (m) => {
    let ownerId: string | null = null;
    if (f.ownerEmail) {
      const [owner] = await m.query<{ id: string }[]>(
        `SELECT u.id FROM users u JOIN memberships ms ON ms.user_id = u.id WHERE ms.workspace_id = $1 AND u.email = $2`,
        [f.workspaceId, f.ownerEmail],
      );
      if (!owner)
        throw new DomainError('not_found', `${f.ownerEmail} is not a member of this workspace.`, {
          field: 'owner',
        });
      ownerId = owner.id;
    }
    const [row] = await m.query<EndpointRow[]>(
      `INSERT INTO webhook_endpoints (workspace_id, url, event_types, owner_user_id, secret_ciphertext)
       VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      [f.workspaceId, f.url, [...new Set(f.events)], ownerId, encryptSecret(secret, deps.secretsKey)],
    );
    await writeAudit(
      m,
      operationAudit(actor.ctx, 'endpoint.create', f.workspaceId, { endpoint_id: row!.id, url: f.url }),
    );
    return { ...endpointView(row!), secret };
  });
}

/** A new secret, effective at once with no overlap; shown once. */
export async function rotateEndpointSecret(db: DataSource, actor: Actor, input: unknown, deps: EndpointDeps) {
  authorize(actor, MANAGE);
  const { id } = validate(idSchema, input);
  const secret = generateSigningSecret();
  const row = await update(db, id, 'secret_ciphertext = $2', [encryptSecret(secret, deps.secretsKey)]);
  await writeAudit(
    db,
    operationAudit(actor.ctx, 'endpoint.rotate_secret', row.workspace_id, { endpoint_id: id }),
  );
  return { ...endpointView(row), secret };
}

/** Re-enabling resets the count of failed deliveries in a row. */
export async function enableEndpoint(db: DataSource, actor: Actor, input: unknown) {
  authorize(actor, MANAGE);
  const { id } = validate(idSchema, input);
  const row = await update(db, id, `status = 'ACTIVE', disabled_reason = NULL, consecutive_failures = 0`, []);
  await writeAudit(db, operationAudit(actor.ctx, 'endpoint.enable', row.workspace_id, { endpoint_id: id }));
  return endpointView(row);
}

/** Disabling (or deleting) cancels the endpoint's waiting deliveries, records and workflows alike. */
async function switchOff(
  db: DataSource,
  actor: Actor,
  input: unknown,
  deps: Pick<EndpointDeps, 'cancelWorkflows'>,
  deleted: boolean,
) {
  authorize(actor, MANAGE);
  const { id, reason } = validate(idSchema.shape({ reason: yup.string().max(500).optional() }), input);
  const { row, workflows } = await db.transaction(async (m) => {
    const [row] = await returning<EndpointRow>(
      m,
      `UPDATE webhook_endpoints SET status = $2, disabled_reason = $3, updated_at = clock_timestamp()
        WHERE id = $1 AND status <> 'DELETED' RETURNING ${COLUMNS}`,
      [
        id,
        deleted ? 'DELETED' : 'DISABLED',
        reason ?? (deleted ? 'deleted by an operator' : 'disabled by an operator'),
      ],
    );
    if (!row) throw notFound('endpoint');
    const workflows = await cancelWaitingDeliveries(m, id);
    await writeAudit(
      m,
      operationAudit(actor.ctx, deleted ? 'endpoint.delete' : 'endpoint.disable', row.workspace_id, {
        endpoint_id: id,
        cancelled: workflows.length,
      }),
    );
    return { row, workflows };
  });
  await deps.cancelWorkflows(workflows);
  return { ...endpointView(row), cancelled_deliveries: workflows.length };
}

export const disableEndpoint = (
  db: DataSource,
  actor: Actor,
  input: unknown,
  deps: Pick<EndpointDeps, 'cancelWorkflows'>,
) => switchOff(db, actor, input, deps, false);
export const deleteEndpoint = (
  db: DataSource,
  actor: Actor,
  input: unknown,
  deps: Pick<EndpointDeps, 'cancelWorkflows'>,
) => switchOff(db, actor, input, deps, true);

/** Changes the subscribed event types; waiting deliveries of a dropped type are cancelled. */
export async function setEndpointEvents(
  db: DataSource,
  actor: Actor,
  input: unknown,
  deps: Pick<EndpointDeps, 'cancelWorkflows'>,
) {
  authorize(actor, MANAGE);
  const { id, events } = validate(idSchema.shape({ events: eventsSchema }), input);
  const { row, workflows } = await db.transaction(async (m) => {
    const [row] = await returning<EndpointRow>(
      m,
      `UPDATE webhook_endpoints SET event_types = $2, updated_at = clock_timestamp() WHERE id = $1 AND status <> 'DELETED' RETURNING ${COLUMNS}`,
      [id, [...new Set(events)]],
    );
    if (!row) throw notFound('endpoint');
    let workflows: string[] = [];
    if (!events.includes('*')) {
      const waitingTypes = await m.query<{ event_type: string }[]>(
        `SELECT DISTINCT event_type FROM webhook_deliveries WHERE endpoint_id = $1 AND status IN ('PENDING', 'FAILED')`,
        [id],
      );
      const dropped = waitingTypes
        .map((t) => t.event_type)
        .filter((t) => t !== TEST_EVENT_TYPE && !events.includes(t));
      if (dropped.length > 0) workflows = await cancelWaitingDeliveries(m, id, dropped);
    }
    await writeAudit(
      m,
      operationAudit(actor.ctx, 'endpoint.set_events', row.workspace_id, { endpoint_id: id, events }),
    );
    return { row, workflows };
  });
  await deps.cancelWorkflows(workflows);
  return { ...endpointView(row), cancelled_deliveries: workflows.length };
}

export async function listEndpoints(db: DataSource, input: unknown) {
  const { workspaceId } = validate(
    yup.object({
      workspaceId: yup.string().uuid('workspace must be a UUID').required('workspace is required'),
    }),
    input,
  );
  const rows = await db.query<EndpointRow[]>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE workspace_id = $1 AND status <> 'DELETED' ORDER BY created_at DESC`,
    [workspaceId],
  );
  return rows.map(endpointView);
}

/** Sends `endpoint.test` to this endpoint only, through the same outbox, relay and workflow as every event. */
export async function testEndpoint(db: DataSource, actor: Actor, input: unknown) {
  authorize(actor, MANAGE);
  const { id } = validate(idSchema, input);
  return db.transaction(async (m) => {
    const [endpoint] = await m.query<EndpointRow[]>(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1 AND status <> 'DELETED'`,
      [id],
    );
    if (!endpoint) throw notFound('endpoint');
    if (endpoint.status !== 'ACTIVE')
      throw new DomainError('conflict', 'The endpoint is disabled; enable it before testing.');
    const eventId = await emitEvent(
      m,
      endpoint.workspace_id,
      TEST_EVENT_TYPE,
      { type: 'endpoint', id },
      { endpoint_id: id },
      { endpointId: id },
    );
    const [delivery] = await m.query<{ id: string; status: string; created_at: Date }[]>(
      `SELECT id, status, created_at FROM webhook_deliveries WHERE event_id = $1`,
      [eventId],
    );
    await writeAudit(
      m,
      operationAudit(actor.ctx, 'endpoint.test', endpoint.workspace_id, {
        endpoint_id: id,
        event_id: eventId,
      }),
    );
    return {
      id: delivery!.id,
      event_id: eventId,
      type: TEST_EVENT_TYPE,
      endpoint_id: id,
      status: delivery!.status,
      created_at: delivery!.created_at.toISOString(),
    };
  });
}
