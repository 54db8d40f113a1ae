import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMaintenanceActivities, type MaintenanceDeps } from '../../activities/maintenance';
import type { Approval } from '../../domain/approvals/entities';
import { emitEvent } from '../../domain/kernel/events';
import { deliveryFanOut } from '../../domain/webhooks/fan-out';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { workspaceWithKey } from '../helpers/fixtures';

const retention = { idempotencyHours: 24, auditDays: 30, eventDays: 10 };

/** The maintenance activities against PostgreSQL, with Temporal stood in for by recording fakes. */
describe('maintenance: retention and requests whose workflow never started', () => {
  let t: TestDatabase;
  before(async () => {
    t = await freshDatabase();
  });
  after(() => t.drop());

  const activities = (over: Partial<MaintenanceDeps> = {}) =>
    createMaintenanceActivities({
      db: t.db,
      startDelivery: async () => undefined,
      startApproval: async () => undefined,
      workflowStatus: async () => 'RUNNING',
      retention,
      ...over,
    });

  it('purges idempotency records, audit rows, mail reports and events past retention, never an event still being delivered', async () => {
    const { workspace, key } = await workspaceWithKey(t.db);
    const ws = workspace.id;
    const aged = (table: string, column: string, age: string, where: string, params: unknown[]) =>
      t.db.query(
        `UPDATE ${table} SET ${column} = clock_timestamp() - interval '${age}' WHERE ${where}`,
        params,
      );
    // Idempotency records: one past 24 hours, one inside the replay window.
    for (const [k, age] of [
      ['old', '25 hours'],
      ['fresh', '23 hours'],
    ] as const) {
      await t.db.query(
        `INSERT INTO idempotency_keys (key_id, idempotency_key, request_hash, response_status, response_body, created_at)
         VALUES ($1, $2, '\\x00', 201, '{}', clock_timestamp() - $3::interval)`,
        [key.id, k, age],
      );
    }
    await t.db.query(
      `INSERT INTO audit_log (door, action, outcome, workspace_id, at) VALUES
         ('rest', 'old', 'allowed', $1, clock_timestamp() - interval '31 days'),
         ('rest', 'recent', 'allowed', $1, clock_timestamp() - interval '29 days')`,
      [ws],
    );
    // Mail reports (the inbound route keeps forged ones too) go with the audit rows' retention.
    await t.db.query(
      `INSERT INTO mail_reports (workspace_id, kind, proven, reason, received_at) VALUES
         ($1, 'bounce', false, 'old', clock_timestamp() - interval '31 days'),
         ($1, 'bounce', false, 'recent', clock_timestamp() - interval '29 days')`,
      [ws],
    );
    const endpoint = await t.db.query<{ id: string }[]>(
      `INSERT INTO webhook_endpoints (workspace_id, url, event_types, secret_ciphertext)
       VALUES ($1, 'https://example.com/h', '{lead.created}', '\\x00') RETURNING id`,
      [ws],
    );
    const event = (status: string) =>
      t.db.transaction(async (m) => {
        const id = await emitEvent(
          m,
          deliveryFanOut,
          ws,
          'lead.created',
          { type: 'lead', id: ws },
          {
            lead_id: ws,
            status: 'NEW',
            source_type: 'test',
            source: 'test',
          },
        );
        await m.query(`UPDATE webhook_deliveries SET status = $2 WHERE event_id = $1`, [id, status]);
        return id;
      });
    const oldDone = await event('SUCCEEDED');
    const oldWaiting = await event('FAILED');
    const recent = await event('SUCCEEDED');
    for (const id of [oldDone, oldWaiting]) await aged('events', 'created_at', '11 days', 'id = $1', [id]);
    assert.ok(endpoint[0]);

    const report = await activities().purgeExpired();
    assert.equal(report.idempotency_keys, 1);
    assert.ok(report.audit_rows >= 1);
    assert.equal(report.events, 1);
    assert.equal(report.mail_reports, 1);
    const reports = await t.db.query<{ reason: string }[]>(
      'SELECT reason FROM mail_reports WHERE workspace_id = $1',
      [ws],
    );
    assert.deepEqual(
      reports.map((r) => r.reason),
      ['recent'],
    );
    const keys = await t.db.query<{ idempotency_key: string }[]>(
      'SELECT idempotency_key FROM idempotency_keys WHERE key_id = $1',
      [key.id],
    );
    assert.deepEqual(
      keys.map((k) => k.idempotency_key),
      ['fresh'],
    );
    const actions = await t.db.query<{ action: string }[]>(
      `SELECT action FROM audit_log WHERE workspace_id = $1 AND action IN ('old', 'recent')`,
      [ws],
    );
    assert.deepEqual(
      actions.map((a) => a.action),
      ['recent'],
    );
    const events = await t.db.query<{ id: string }[]>('SELECT id FROM events WHERE id = ANY($1)', [
      [oldDone, oldWaiting, recent],
    ]);
    assert.deepEqual(new Set(events.map((e) => e.id)), new Set([oldWaiting, recent]));
    const deliveries = await t.db.query('SELECT 1 FROM webhook_deliveries WHERE event_id = $1', [oldDone]);
    assert.equal(deliveries.length, 0, 'its deliveries went with it');
  });

  it("starts a parked request's workflow that never started, once, and audits it", async () => {
    const { workspace, key } = await workspaceWithKey(t.db);
    const [row] = await t.db.query<{ id: string }[]>(
      `INSERT INTO approvals (workspace_id, operation, input, input_hash, summary, requested_by_key, requested_by_user,
                              expires_at, created_at)
       SELECT $1, 'connection.disconnect', '{}', '\\x00', 'Disconnect x', $2, owner_user_id,
              clock_timestamp() + interval '7 days', clock_timestamp() - interval '15 minutes'
         FROM api_keys WHERE id = $2 RETURNING id`,
      [workspace.id, key.id],
    );
    const started: Approval[] = [];
    const maintenance = activities({
      startApproval: async (a) => {
        started.push(a);
      },
      workflowStatus: async (id) =>
        id === `approval:${row!.id}` && started.length === 0 ? 'NOT_FOUND' : 'RUNNING',
    });
    assert.equal((await maintenance.reconcileDeliveries()).approvals_started, 1);
    assert.deepEqual(
      started.map((a) => a.id),
      [row!.id],
    );
    assert.equal((await maintenance.reconcileDeliveries()).approvals_started, 0, 'not twice');
    const [audit] = await t.db.query<{ reason: string }[]>(
      `SELECT reason FROM audit_log WHERE action = 'approval.reconcile' AND details->>'approval_id' = $1`,
      [row!.id],
    );
    assert.equal(audit!.reason, 'started: its workflow had not started');
  });

  it("starts a booking's workflow that never started (a crash between commit and start), once, and audits it", async () => {
    const { workspace } = await workspaceWithKey(t.db);
    const [row] = await t.db.query<{ id: string }[]>(
      `WITH lead AS (INSERT INTO leads (workspace_id, email, source)
                     VALUES ($1, 'booked@example.com', 'test') RETURNING id)
       INSERT INTO appointments (workspace_id, lead_id, starts_at, ends_at, timezone, title, provider, created_at)
       SELECT $1, id, now() + interval '1 day', now() + interval '25 hours', 'UTC', 'Intro', 'manual',
              clock_timestamp() - interval '15 minutes' FROM lead RETURNING id`,
      [workspace.id],
    );
    const started: string[] = [];
    const maintenance = activities({
      startAppointment: async (id) => {
        started.push(id);
      },
      workflowStatus: async (id) =>
        id === `appointment:${row!.id}` && started.length === 0 ? 'NOT_FOUND' : 'RUNNING',
    });
    assert.equal((await maintenance.reconcileDeliveries()).appointments_started, 1);
    assert.deepEqual(started, [row!.id]);
    assert.equal((await maintenance.reconcileDeliveries()).appointments_started, 0, 'not twice');
    const audits = await t.db.query(
      `SELECT 1 FROM audit_log WHERE action = 'appointment.reconcile' AND details->>'appointment_id' = $1`,
      [row!.id],
    );
    assert.equal(audits.length, 1);
  });
});
