import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { approveApproval } from '../../domain/approvals/operations/approve';
import { decideApproval } from '../../domain/approvals/operations/decide';
import { getApproval } from '../../domain/approvals/operations/get';
import { rejectApproval } from '../../domain/approvals/operations/reject';
import { showApproval } from '../../domain/approvals/operations/show';
import { approvalText } from '../../domain/approvals/show';
import type { ApprovalView } from '../../domain/approvals/views';
import { addConnection } from '../../domain/connections/operations/add';
import { disconnectConnection } from '../../domain/connections/operations/disconnect';
import { authenticateKey } from '../../domain/identity/authenticate';
import { addMember } from '../../domain/identity/operations/member-add';
import { setMemberRole } from '../../domain/identity/operations/member-set-role';
import { keyActor, operatorActor, type Actor } from '../../domain/kernel/actor';
import type { Services } from '../../domain/kernel/operation';
import type { Role } from '../../domain/kernel/permissions';
import { executeOrPark, runOperation } from '../../domain/kernel/runner';
import { composeServices } from '../../domain/registry';
import { loadConfig } from '../../infra/config';
import { productionPorts } from '../../infra/services';
import { SERVICE_DEFAULTS } from '../../tooling/services';
import { approvalEnvironment } from '../helpers/approval-environment';
import type { TestDatabase } from '../helpers/db';
import { asOperator, refusal, workspaceWithKey } from '../helpers/fixtures';

const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** An assertion shaped as a browser sends it; the console has verified its signature before the call. */
const assertionFor = (userId: string, approvalId: string) => {
  const id = b64(randomBytes(32));
  return {
    id,
    rawId: id,
    type: 'public-key',
    response: {
      clientDataJSON: b64(
        JSON.stringify({ type: 'webauthn.get', challenge: b64(approvalId), origin: 'http://localhost:3000' }),
      ),
      authenticatorData: b64(randomBytes(37)),
      signature: b64(randomBytes(70)),
      userHandle: b64(userId),
    },
    authenticatorAttachment: 'platform',
    clientExtensionResults: {},
  };
};

/** A deployment's worker, configured from `env` as production reads it. */
const deployedWorker =
  (env: Record<string, string>) =>
  (db: DataSource): Services =>
    composeServices(
      productionPorts(
        db,
        loadConfig({
          NODE_ENV: 'production',
          SECRETS_KEY: SERVICE_DEFAULTS.secretsKey.toString('base64'),
          DATABASE_URL: 'postgres://unused',
          TEMPORAL_ADDRESS: 'unused:7233',
          ...env,
        }),
        () => Promise.reject(new Error('the worker reaches no Temporal client here')),
      ),
    );

/**
 * A workspace with a connected system, a key allowed to disconnect it, an admin and a plain member;
 * `park` parks one more disconnect (of another connection).
 */
async function workspace(t: TestDatabase, services: Services) {
  const w = await workspaceWithKey(t.db, { role: 'admin', scopes: ['business:read', 'business:write'] });
  const workspaceId = w.workspace.id;
  const tag = workspaceId.slice(0, 8);
  const admin = `approver.${tag}@example.com`;
  const member = `member.${tag}@example.com`;
  await asOperator(t.db, addMember, { email: admin, role: 'admin' }, { workspaceId });
  await asOperator(t.db, addMember, { email: member, role: 'member' }, { workspaceId });
  const userId = async (email: string) =>
    (await t.db.query<{ id: string }[]>('SELECT id FROM users WHERE email = $1', [email]))[0]!.id;
  const auth = await authenticateKey(t.db, w.key.key, undefined);
  if (!auth.ok) throw new Error(auth.reason);
  const key = keyActor(auth.principal, { door: 'mcp', requestId: `req_${tag}` });
  const park = async (system: 'google_calendar' | 'hubspot' = 'google_calendar') => {
    const c = await asOperator(t.db, addConnection, { system }, { workspaceId });
    const r = await executeOrPark(services, disconnectConnection, key, { connectionId: c.id });
    if (!('parked' in r)) throw new Error('the gated call ran instead of parking');
    const [row] = await t.db.query<{ digest: string }[]>(
      `SELECT effect->>'digest' AS digest FROM approvals WHERE id = $1`,
      [r.parked.approval_id],
    );
    return { parked: r.parked, id: r.parked.approval_id, digest: row!.digest, connectionId: c.id };
  };
  /** A member in the console, with the role the console read for them (live, or as it stood). */
  const memberActor = (id: string, role: Role | null): Actor => ({
    type: 'member',
    userId: id,
    workspaceId,
    role,
    ctx: { door: 'public', requestId: `console_${tag}`, actorUserId: id },
  });
  const connection = async (id: string) =>
    (await t.db.query<{ status: string }[]>('SELECT status FROM connections WHERE id = $1', [id]))[0]!.status;
  const row = async (id: string) =>
    (
      await t.db.query<Record<string, unknown>[]>(
        `SELECT status, decided_by, decided_via, decided_credential, decided_assertion, decided_digest, operator_asserted
           FROM approvals WHERE id = $1`,
        [id],
      )
    )[0]!;
  const audits = (id: string, action: string) =>
    t.db.query<
      {
        door: string;
        outcome: string;
        reason: string | null;
        actor_user_id: string | null;
        details: Record<string, unknown>;
      }[]
    >(
      `SELECT door, outcome, reason, actor_user_id, details FROM audit_log
        WHERE action = $1 AND details->>'approval_id' = $2 ORDER BY id`,
      [action, id],
    );
  return { w, workspaceId, admin, member, userId, key, park, memberActor, connection, row, audits };
}

describe('who decided: a member with their passkey, or an operator asserting it', () => {
  let t: TestDatabase;
  let services: Services;
  let stop: () => Promise<void>;

  before(async () => {
    ({ t, services, stop } = await approvalEnvironment('decisions'));
  });
  after(async () => {
    await stop?.();
  });

  it('parks with the request’s page in the console on the public URL', async () => {
    const s = await workspace(t, services);
    const p = await s.park();
    assert.equal(
      p.parked.approval_url,
      `${SERVICE_DEFAULTS.publicUrl}/app/w/${s.workspaceId}/approvals/${p.id}`,
    );
  });

  it('records a member’s passkey approval with the credential, the signed assertion and the digest; it runs once; show prints it', async () => {
    const s = await workspace(t, services);
    const p = await s.park();
    const adminId = await s.userId(s.admin);
    const assertion = assertionFor(adminId, p.id);
    const outcome = (await runOperation(services, decideApproval, s.memberActor(adminId, 'admin'), {
      id: p.id,
      decision: 'approve',
      digest: p.digest,
      credentialId: assertion.id,
      assertion,
      reason: 'Moving to the new calendar.',
    })) as ApprovalView;
    assert.equal(outcome.status, 'EXECUTED');
    assert.equal(await s.connection(p.connectionId), 'DISCONNECTED');
    assert.deepEqual(
      [outcome.decided_by, outcome.decided_via, outcome.decided_credential, outcome.decided_digest],
      [adminId, 'passkey', assertion.id, p.digest],
    );
    assert.equal(outcome.operator_asserted, null);
    assert.deepEqual(await s.row(p.id), {
      status: 'EXECUTED',
      decided_by: adminId,
      decided_via: 'passkey',
      decided_credential: assertion.id,
      decided_assertion: assertion,
      decided_digest: p.digest,
      operator_asserted: null,
    });
    const [audit] = await s.audits(p.id, 'approval.approve');
    assert.deepEqual(
      [audit!.door, audit!.outcome, audit!.actor_user_id, audit!.details],
      [
        'public',
        'allowed',
        adminId,
        {
          approval_id: p.id,
          operation: 'connection.disconnect',
          decided_via: 'passkey',
          credential_id: assertion.id,
          digest: p.digest,
        },
      ],
    );
    // The assistant that asked reads how it was decided; the assertion itself stays with the record.
    const seen = await runOperation(services, getApproval, s.key, { approvalId: p.id });
    assert.deepEqual([seen.decided_via, seen.decided_credential], ['passkey', assertion.id]);
    assert.equal('decided_assertion' in seen, false);

    const shown = await asOperator(services, showApproval, { id: p.id });
    assert.deepEqual(shown.decided_assertion, assertion);
    const text = approvalText(shown);
    assert.match(
      text,
      new RegExp(
        `^Approved by member ${adminId} at ${outcome.decided_at}, with their passkey \\(credential ${assertion.id}\\)$`,
        'm',
      ),
    );
    assert.match(text, new RegExp(`^  Approved snapshot: sha256:${p.digest}$`, 'm'));
    assert.ok(text.includes(`  Signed assertion: ${JSON.stringify(shown.decided_assertion)}\n`), text);
  });

  it('refuses a passkey decision signed for another request’s digest, or any other: nothing recorded, nothing runs, audited', async () => {
    const s = await workspace(t, services);
    const first = await s.park('google_calendar');
    const second = await s.park('hubspot');
    assert.notEqual(first.digest, second.digest);
    const adminId = await s.userId(s.admin);
    const decide = (digest: string, decision: 'approve' | 'reject' = 'approve') => {
      const assertion = assertionFor(adminId, second.id);
      return runOperation(services, decideApproval, s.memberActor(adminId, 'admin'), {
        id: second.id,
        decision,
        digest,
        credentialId: assertion.id,
        assertion,
      });
    };
    for (const digest of [first.digest, 'f'.repeat(64)]) {
      const err = await refusal(decide(digest));
      assert.equal(err.code, 'forbidden');
      assert.equal(
        err.message,
        `This decision was signed for sha256:${digest.slice(0, 12)}, not for this request as it waits (sha256:${second.digest.slice(0, 12)}): the approver approved something else, so nothing was recorded.`,
      );
    }
    assert.deepEqual(
      [(await s.row(second.id)).status, (await s.row(second.id)).decided_via],
      ['PENDING', null],
    );
    assert.equal(await s.connection(second.connectionId), 'CONNECTED', 'nothing ran');
    const refused = await s.audits(second.id, 'approval.approve');
    assert.deepEqual(
      refused.map((a) => [a.outcome, a.reason, a.actor_user_id]),
      [
        ['refused', 'approver: signed digest differs from the snapshot', adminId],
        ['refused', 'approver: signed digest differs from the snapshot', adminId],
      ],
    );
    // Signed for this request's own snapshot, the member's rejection is recorded as theirs.
    const rejected = (await decide(second.digest, 'reject')) as ApprovalView;
    assert.deepEqual([rejected.status, rejected.decided_via], ['REJECTED', 'passkey']);
    assert.match(
      approvalText(await asOperator(services, showApproval, { id: second.id })),
      new RegExp(`^Rejected by member ${adminId} at .*, with their passkey \\(credential .+\\)$`, 'm'),
    );
    assert.equal(await s.connection(second.connectionId), 'CONNECTED');
  });

  it('refuses a member without the role, a member demoted since their page loaded, another workspace’s member, and anyone but a member', async () => {
    const s = await workspace(t, services);
    const p = await s.park();
    const memberId = await s.userId(s.member);
    const adminId = await s.userId(s.admin);
    const input = () => {
      const assertion = assertionFor(memberId, p.id);
      return { id: p.id, decision: 'approve', digest: p.digest, credentialId: assertion.id, assertion };
    };
    // The live role the console read: the runner refuses before anything is asked of the request.
    const role = await refusal(
      runOperation(services, decideApproval, s.memberActor(memberId, 'member'), input()),
    );
    assert.deepEqual([role.code, role.auditReason], ['forbidden', 'role member is below admin']);
    // The console read admin, but the member is no longer one: the rule, under the lock, refuses and audits.
    const stale = await refusal(
      runOperation(services, decideApproval, s.memberActor(memberId, 'admin'), input()),
    );
    assert.equal(stale.code, 'forbidden');
    assert.equal(
      stale.message,
      'This member may not decide this request: only an admin or owner of its workspace may.',
    );
    await asOperator(t.db, setMemberRole, { email: s.admin, role: 'member' }, { workspaceId: s.workspaceId });
    const demoted = await refusal(
      runOperation(services, decideApproval, s.memberActor(adminId, 'admin'), input()),
    );
    assert.match(demoted.message, /only an admin or owner/);
    assert.deepEqual(
      (await s.audits(p.id, 'approval.approve')).map((a) => [a.outcome, a.actor_user_id, a.reason]),
      [
        ['refused', memberId, 'approver: role member is below admin'],
        ['refused', adminId, 'approver: role member is below admin'],
      ],
    );
    // An admin of another workspace does not find it.
    const other = await workspace(t, services);
    const otherAdmin = await other.userId(other.admin);
    const elsewhere = await refusal(
      runOperation(services, decideApproval, other.memberActor(otherAdmin, 'admin'), input()),
    );
    assert.equal(elsewhere.code, 'not_found');
    // A key, or the operator, cannot sign as a member.
    const byOperator = await refusal(
      runOperation(services, decideApproval, operatorActor({ door: 'admin' }), input()),
    );
    assert.equal(byOperator.code, 'forbidden');
    assert.equal((await s.row(p.id)).status, 'PENDING');
    assert.equal(await s.connection(p.connectionId), 'CONNECTED', 'nothing ran');
  });

  it('refuses an assertion whose credential is not the one named, before anything runs', async () => {
    const s = await workspace(t, services);
    const p = await s.park();
    const adminId = await s.userId(s.admin);
    const assertion = assertionFor(adminId, p.id);
    const err = await refusal(
      runOperation(services, decideApproval, s.memberActor(adminId, 'admin'), {
        id: p.id,
        decision: 'approve',
        digest: p.digest,
        credentialId: b64('another credential'),
        assertion,
      }),
    );
    assert.equal(err.code, 'invalid_request');
    assert.equal((await s.row(p.id)).status, 'PENDING');
  });

  it('records an operator’s break-glass decision as operator-asserted, with the OS user and host; show says so', async () => {
    const s = await workspace(t, services);
    const p = await s.park();
    const adminId = await s.userId(s.admin);
    const outcome = (await asOperator(services, approveApproval, { id: p.id, as: s.admin })) as ApprovalView;
    assert.equal(outcome.status, 'EXECUTED');
    const asserted = { os_user: userInfo().username, host: hostname() };
    assert.deepEqual(await s.row(p.id), {
      status: 'EXECUTED',
      decided_by: adminId,
      decided_via: 'operator',
      decided_credential: null,
      decided_assertion: null,
      decided_digest: null,
      operator_asserted: asserted,
    });
    const [audit] = await s.audits(p.id, 'approval.approve');
    assert.deepEqual(
      [audit!.door, audit!.outcome, audit!.details],
      [
        'admin',
        'allowed',
        {
          approval_id: p.id,
          operation: 'connection.disconnect',
          decided_via: 'operator',
          as: s.admin,
          operator_asserted: asserted,
        },
      ],
    );
    const seen = await runOperation(services, getApproval, s.key, { approvalId: p.id });
    assert.deepEqual([seen.decided_via, seen.operator_asserted], ['operator', asserted]);
    assert.match(
      approvalText(await asOperator(services, showApproval, { id: p.id })),
      new RegExp(
        `^Approved as member ${adminId} at ${outcome.decided_at}: OPERATOR-ASSERTED by ${asserted.os_user} on ${asserted.host} at the admin CLI, not proven by the member$`,
        'm',
      ),
    );
  });
});

describe('a deployment’s worker in production: the operator’s break-glass is off unless APPROVALS_OPERATOR_DECIDE=true', () => {
  let t: TestDatabase;
  let services: Services;
  let stop: () => Promise<void>;

  before(async () => {
    ({ t, services, stop } = await approvalEnvironment('break-glass', deployedWorker({})));
  });
  after(async () => {
    await stop?.();
  });

  it('takes the setting as production reads it: off by default there, on with it, always on elsewhere', () => {
    const allowed = (env: Record<string, string>) => deployedWorker(env)(t.db).operatorDecisions.allowed;
    assert.equal(allowed({}), false);
    assert.equal(allowed({ APPROVALS_OPERATOR_DECIDE: 'false' }), false);
    assert.equal(allowed({ APPROVALS_OPERATOR_DECIDE: 'true' }), true);
    assert.equal(allowed({ NODE_ENV: 'development' }), true);
    assert.deepEqual(
      [deployedWorker({})(t.db).operatorDecisions.osUser, deployedWorker({})(t.db).operatorDecisions.host],
      [userInfo().username, hostname()],
    );
  });

  it('refuses approval approve|reject --as naming the setting, audited; nothing runs; a member’s passkey decision still counts', async () => {
    const s = await workspace(t, services);
    const p = await s.park();
    for (const op of [approveApproval, rejectApproval]) {
      const err = await refusal(asOperator(services, op, { id: p.id, as: s.admin }));
      assert.equal(err.code, 'forbidden');
      assert.match(err.message, /APPROVALS_OPERATOR_DECIDE=true/);
      assert.match(err.message, /^An operator may not decide approval requests in production/);
    }
    assert.equal((await s.row(p.id)).status, 'PENDING');
    assert.equal(await s.connection(p.connectionId), 'CONNECTED', 'nothing ran');
    const refused = [
      ...(await s.audits(p.id, 'approval.approve')),
      ...(await s.audits(p.id, 'approval.reject')),
    ];
    assert.deepEqual(
      refused.map((a) => [a.door, a.outcome, a.reason, a.details.as]),
      [
        ['admin', 'refused', 'operator decisions are off (APPROVALS_OPERATOR_DECIDE)', s.admin],
        ['admin', 'refused', 'operator decisions are off (APPROVALS_OPERATOR_DECIDE)', s.admin],
      ],
    );
    const adminId = await s.userId(s.admin);
    const assertion = assertionFor(adminId, p.id);
    const outcome = (await runOperation(services, decideApproval, s.memberActor(adminId, 'admin'), {
      id: p.id,
      decision: 'approve',
      digest: p.digest,
      credentialId: assertion.id,
      assertion,
    })) as ApprovalView;
    assert.deepEqual([outcome.status, outcome.decided_via], ['EXECUTED', 'passkey']);
  });
});
