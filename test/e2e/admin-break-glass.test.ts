import assert from 'node:assert/strict';
import { hostname, userInfo } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { addConnection } from '../../domain/connections/operations/add';
import { disconnectConnection } from '../../domain/connections/operations/disconnect';
import { authenticateKey } from '../../domain/identity/authenticate';
import { addMember } from '../../domain/identity/operations/member-add';
import { keyActor } from '../../domain/kernel/actor';
import { executeOrPark } from '../../domain/kernel/runner';
import { approvalGate } from '../../infra/temporal/approvals';
import { SERVICE_DEFAULTS, testServices } from '../../tooling/services';
import { runAdminAsync } from '../helpers/admin';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

const BOSS = 'boss@acme.example';

/**
 * The operator's break-glass at the real admin CLI (issue 55, item 4): in production mode without
 * APPROVALS_OPERATOR_DECIDE, `approval approve|reject --as` is refused, naming the setting, by the CLI
 * itself (the stack's worker runs in test mode, where it would take the decision: the request never got
 * there); with the setting on, the decision is made through the request's workflow and shows as
 * operator-asserted, with the operating system user and host, in `approval show`.
 */
describe('approval approve --as at the admin CLI in production', () => {
  let s: WebhookStack;

  before(async () => {
    s = await startWebhookStack();
  });
  after(async () => {
    await s?.stop();
  });

  /** The CLI as a production host runs it, against this stack's database and Temporal. */
  const admin = (decide: 'true' | undefined, ...args: string[]) =>
    runAdminAsync(
      {
        NODE_ENV: 'production',
        SECRETS_KEY: SERVICE_DEFAULTS.secretsKey.toString('base64'),
        DATABASE_URL: s.t.url,
        TEMPORAL_ADDRESS: s.config.temporalAddress,
        TEMPORAL_TASK_QUEUE: s.config.temporalTaskQueue,
        APPROVALS_OPERATOR_DECIDE: decide,
      },
      args,
    );

  /** A key's disconnect of a connected system, parked for a person's decision on the stack's worker. */
  async function parked() {
    const w = await workspaceWithKey(s.db, { role: 'admin', scopes: ['business:read', 'business:write'] });
    const workspaceId = w.workspace.id;
    await asOperator(s.db, addMember, { email: BOSS, role: 'admin' }, { workspaceId });
    const services = testServices(s.db, {
      approvals: approvalGate(s.db, () => Promise.resolve(s.client), s.config.temporalTaskQueue, s.config),
    });
    const c = await asOperator(services, addConnection, { system: 'hubspot' }, { workspaceId });
    const auth = await authenticateKey(s.db, w.key.key, undefined);
    if (!auth.ok) throw new Error(auth.reason);
    const key = keyActor(auth.principal, { door: 'mcp', requestId: 'req_break_glass' });
    const r = await executeOrPark(services, disconnectConnection, key, { connectionId: c.id });
    if (!('parked' in r)) throw new Error('the gated call ran instead of parking');
    return { id: r.parked.approval_id, connectionId: c.id };
  }

  const approval = async (id: string) =>
    (
      await s.db.query<{ status: string; decided_via: string | null }[]>(
        `SELECT status, decided_via FROM approvals WHERE id = $1`,
        [id],
      )
    )[0]!;
  const connection = async (id: string) =>
    (await s.db.query<{ status: string }[]>(`SELECT status FROM connections WHERE id = $1`, [id]))[0]!.status;

  it('is refused without APPROVALS_OPERATOR_DECIDE, naming it, by the CLI itself: nothing recorded, nothing run, the attempt audited', async () => {
    const p = await parked();
    for (const verb of ['approve', 'reject'] as const) {
      const r = await admin(undefined, 'approval', verb, '--id', p.id, '--as', BOSS);
      assert.equal(r.code, 1, r.stdout);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr.split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /^error: An operator may not decide approval requests in production/);
      assert.match(r.stderr, /APPROVALS_OPERATOR_DECIDE=true/);
    }
    assert.deepEqual(await approval(p.id), { status: 'PENDING', decided_via: null });
    assert.equal(await connection(p.connectionId), 'CONNECTED', 'nothing ran');
    const audits = await s.db.query<{ action: string; door: string; outcome: string; reason: string }[]>(
      `SELECT action, door, outcome, reason FROM audit_log
        WHERE action IN ('approval.approve', 'approval.reject') AND details->>'approval_id' = $1 ORDER BY id`,
      [p.id],
    );
    assert.deepEqual(
      audits.map((a) => [a.action, a.door, a.outcome, a.reason]),
      ['approval.approve', 'approval.reject'].map((action) => [
        action,
        'admin',
        'refused',
        'operator decisions are off (APPROVALS_OPERATOR_DECIDE)',
      ]),
    );
  });

  it('with APPROVALS_OPERATOR_DECIDE=true decides through the workflow, shown as operator-asserted with the OS user and host', async () => {
    const p = await parked();
    const r = await admin('true', 'approval', 'approve', '--id', p.id, '--as', BOSS);
    assert.equal(r.code, 0, r.stderr);
    const asserted = { os_user: userInfo().username, host: hostname() };
    const decided = JSON.parse(r.stdout) as {
      status: string;
      decided_via: string;
      operator_asserted: unknown;
    };
    assert.deepEqual(
      [decided.status, decided.decided_via, decided.operator_asserted],
      ['EXECUTED', 'operator', asserted],
    );
    assert.equal(await connection(p.connectionId), 'DISCONNECTED', 'it ran, once approved');
    const [boss] = await s.db.query<{ id: string }[]>('SELECT id FROM users WHERE email = $1', [BOSS]);
    const shown = await admin('true', 'approval', 'show', '--id', p.id);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(
      shown.stdout,
      new RegExp(
        `^Approved as member ${boss!.id} at .+: OPERATOR-ASSERTED by ${asserted.os_user} on ${asserted.host} at the admin CLI, not proven by the member$`,
        'm',
      ),
    );
  });
});
