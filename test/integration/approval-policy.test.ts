import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { approveApproval } from '../../domain/approvals/operations/approve';
import { rejectApproval } from '../../domain/approvals/operations/reject';
import { showApproval } from '../../domain/approvals/operations/show';
import { approvalText } from '../../domain/approvals/show';
import type { ApprovalView } from '../../domain/approvals/views';
import { createCampaign } from '../../domain/campaigns/operations/create';
import { sendCampaign } from '../../domain/campaigns/operations/send';
import { authenticateKey } from '../../domain/identity/authenticate';
import { addMember } from '../../domain/identity/operations/member-add';
import { setApprovalPolicy } from '../../domain/identity/operations/workspace-set-approval-policy';
import { keyActor } from '../../domain/kernel/actor';
import type { Services } from '../../domain/kernel/operation';
import { executeOrPark, runOperation } from '../../domain/kernel/runner';
import { runAdmin } from '../helpers/admin';
import { approvalEnvironment } from '../helpers/approval-environment';
import type { TestDatabase } from '../helpers/db';
import { asOperator, refusal, workspaceWithKey } from '../helpers/fixtures';
import { intakeBody } from '../helpers/leads';
import { createLead } from '../../domain/leads/operations/create';

const ALWAYS = { weekdays: [1, 2, 3, 4, 5, 6, 7], start_hour: 0, end_hour: 24 };

describe('a workspace can require a second person: the owner of the key that asked may not approve it', () => {
  let t: TestDatabase;
  let services: Services;
  let stop: () => Promise<void>;

  before(async () => {
    ({ t, services, stop } = await approvalEnvironment('policy'));
  });
  after(async () => {
    await stop?.();
  });

  /** A workspace whose admin owns the assistant's key, a second admin, and a parked send to two leads. */
  async function workspace() {
    const w = await workspaceWithKey(t.db, {
      role: 'admin',
      scopes: ['business:read', 'campaigns:read', 'campaigns:write', 'leads:read', 'leads:write'],
    });
    const workspaceId = w.workspace.id;
    const second = `second.${workspaceId.slice(0, 8)}@example.com`;
    await asOperator(services, addMember, { email: second, role: 'admin' }, { workspaceId });
    const auth = await authenticateKey(t.db, w.key.key, undefined);
    if (!auth.ok) throw new Error(auth.reason);
    const actor = keyActor(auth.principal, { door: 'mcp', requestId: `req_${workspaceId}` });
    const source = `policy-${workspaceId.slice(0, 8)}`;
    for (let i = 0; i < 2; i++)
      await runOperation(services, createLead, actor, {
        ...intakeBody({ source }),
        idempotency_key: randomUUID(),
      });
    const parkSend = async () => {
      const c = (await runOperation(services, createCampaign, actor, {
        name: `Policy ${randomUUID().slice(0, 6)}`,
        channel: 'email',
        audience: { sources: [source] },
        steps: [{ subject: 'Hi {first_name}', body: 'Hello', delay_hours: 0 }],
        window: ALWAYS,
      })) as { id: string };
      const r = await executeOrPark(services, sendCampaign, actor, { campaignId: c.id });
      if (!('parked' in r)) throw new Error('campaign.send ran instead of parking');
      return { campaignId: c.id, approvalId: r.parked.approval_id };
    };
    const approve = async (id: string, as: string) =>
      (await asOperator(services, approveApproval, { id, as })) as ApprovalView;
    const show = (id: string, as?: string) =>
      asOperator(services, showApproval, { id, ...(as ? { as } : {}) });
    const status = async (table: 'approvals' | 'campaigns', id: string) =>
      (await t.db.query<{ status: string }[]>(`SELECT status FROM ${table} WHERE id = $1`, [id]))[0]!.status;
    return { w, workspaceId, requester: w.email, second, parkSend, approve, show, status };
  }

  it('off by default: a one-admin workspace approves its own assistant’s request', async () => {
    const s = await workspace();
    const p = await s.parkSend();
    const shown = await s.show(p.approvalId, s.requester);
    assert.equal(shown.second_person_required, false);
    assert.deepEqual(shown.decider, { email: s.requester, may_decide: true, refusal: null });
    assert.match(approvalText(shown), new RegExp(`^${s.requester} may decide: yes$`, 'm'));
    assert.equal((await s.approve(p.approvalId, s.requester)).status, 'EXECUTED');
  });

  it('on: self-approval is refused with the reason and audited, nothing runs; another admin approves it', async () => {
    const s = await workspace();
    const set = await asOperator(
      services,
      setApprovalPolicy,
      { distinct: 'true' },
      { workspaceId: s.workspaceId },
    );
    assert.deepEqual(set, { distinct: true });
    const p = await s.parkSend();

    const shown = await s.show(p.approvalId, s.requester);
    assert.equal(shown.second_person_required, true);
    assert.equal(shown.decider?.may_decide, false);
    assert.match(
      approvalText(shown),
      new RegExp(
        `^${s.requester} may decide: no: the workspace requires a second person, and this member owns the key that asked$`,
        'm',
      ),
    );
    assert.match(
      approvalText(await s.show(p.approvalId, s.second)),
      new RegExp(`^${s.second} may decide: yes$`, 'm'),
    );
    assert.match(
      approvalText(await s.show(p.approvalId)),
      /^Approvers: the workspace requires a second person; the owner of the key that asked may not approve it\.$/m,
    );

    const err = await refusal(s.approve(p.approvalId, s.requester));
    assert.equal(err.code, 'forbidden');
    assert.equal(
      err.message,
      `${s.requester} may not decide this request: the workspace requires a second person, and this member owns the key that asked.`,
    );
    assert.equal(await s.status('approvals', p.approvalId), 'PENDING', 'still waiting for a second person');
    assert.equal(await s.status('campaigns', p.campaignId), 'DRAFT', 'nothing ran');
    const [audited] = await t.db.query<
      { outcome: string; reason: string; actor_user_id: string; details: Record<string, unknown> }[]
    >(
      `SELECT outcome, reason, actor_user_id, details FROM audit_log
        WHERE workspace_id = $1 AND action = 'approval.approve' ORDER BY at`,
      [s.workspaceId],
    );
    assert.equal(audited?.outcome, 'refused');
    assert.equal(audited?.reason, 'approver: self-approval with distinct approvers required');
    assert.equal(audited?.details.approval_id, p.approvalId);
    const [requester] = await t.db.query<{ id: string }[]>('SELECT id FROM users WHERE email = $1', [
      s.requester,
    ]);
    assert.equal(audited?.actor_user_id, requester!.id, 'audited on the person who tried');

    const approved = await s.approve(p.approvalId, s.second);
    assert.equal(approved.status, 'EXECUTED', JSON.stringify(approved.error));
    assert.equal(await s.status('campaigns', p.campaignId), 'RUNNING');

    // Rejecting stays open to the requester: it only stops what they asked.
    const q = await s.parkSend();
    const rejected = (await asOperator(services, rejectApproval, {
      id: q.approvalId,
      as: s.requester,
      reason: 'Not now',
    })) as ApprovalView;
    assert.equal(rejected.status, 'REJECTED');
  });

  it('is set by the derived admin command `workspace approvals --distinct`, and `approval show --as` says who may decide', async () => {
    const s = await workspace();
    const admin = (...args: string[]) =>
      runAdmin({ DATABASE_URL: t.url, TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS }, args);
    const on = admin('workspace', 'approvals', '--workspace', s.workspaceId, '--distinct', 'true');
    assert.equal(on.code, 0, on.stderr);
    assert.deepEqual(JSON.parse(on.stdout), { distinct: true });
    const bad = admin('workspace', 'approvals', '--workspace', s.workspaceId, '--distinct', 'maybe');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^error \(distinct\): distinct must be true or false/);
    const p = await s.parkSend();
    const shown = admin('approval', 'show', '--id', p.approvalId, '--as', s.requester);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /may decide: no: the workspace requires a second person/);
    const [row] = await t.db.query<{ outcome: string; details: Record<string, unknown> }[]>(
      `SELECT outcome, details FROM audit_log WHERE workspace_id = $1 AND action = 'workspace.set_approval_policy'`,
      [s.workspaceId],
    );
    assert.deepEqual([row?.outcome, row?.details.distinct], ['allowed', true]);
    const off = admin('workspace', 'approvals', '--workspace', s.workspaceId, '--distinct', 'false');
    assert.deepEqual(JSON.parse(off.stdout), { distinct: false });
    assert.equal((await s.approve(p.approvalId, s.requester)).status, 'EXECUTED');
  });
});
