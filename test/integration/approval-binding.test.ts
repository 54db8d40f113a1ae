import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { configureAgent } from '../../domain/agents/operations/configure';
import { createAgent } from '../../domain/agents/operations/create';
import { runAgentNow } from '../../domain/agents/operations/run-now';
import { startAgent } from '../../domain/agents/operations/start';
import { approveApproval } from '../../domain/approvals/operations/approve';
import { getApproval } from '../../domain/approvals/operations/get';
import { showApproval } from '../../domain/approvals/operations/show';
import { runApproved } from '../../domain/approvals/run-approved';
import { approvalText } from '../../domain/approvals/show';
import { taskOf } from '../../domain/approvals/tasks';
import type { ApprovalView } from '../../domain/approvals/views';
import { approvalWorkflowId } from '../../infra/temporal/workflow-ids';
import { createCampaign } from '../../domain/campaigns/operations/create';
import { updateCampaign } from '../../domain/campaigns/operations/update';
import { launchCampaign } from '../../domain/campaigns/operations/launch';
import { sendCampaign } from '../../domain/campaigns/operations/send';
import { addConnection } from '../../domain/connections/operations/add';
import { disconnectConnection } from '../../domain/connections/operations/disconnect';
import { authenticateKey } from '../../domain/identity/authenticate';
import { revokeApiKey } from '../../domain/identity/operations/key-revoke';
import { addMember } from '../../domain/identity/operations/member-add';
import { removeMember } from '../../domain/identity/operations/member-remove';
import { setMemberRole } from '../../domain/identity/operations/member-set-role';
import { createLead } from '../../domain/leads/operations/create';
import { keyActor, type Actor } from '../../domain/kernel/actor';
import type { Parked } from '../../domain/kernel/gate';
import type { AnyOperation, Services } from '../../domain/kernel/operation';
import { executeOrPark, runOperation } from '../../domain/kernel/runner';
import { waitFor } from '../../tooling/processes';
import { approvalEnvironment } from '../helpers/approval-environment';
import type { TestDatabase } from '../helpers/db';
import { asOperator, refusal, workspaceWithKey } from '../helpers/fixtures';
import { intakeBody } from '../helpers/leads';

const ALWAYS = { weekdays: [1, 2, 3, 4, 5, 6, 7], start_hour: 0, end_hour: 24 };
const STEP = {
  subject: 'Spring {first_name}',
  body: 'Hello {first_name}, our spring offer.',
  delay_hours: 0,
};

describe('an approval binds what the person saw: changed targets refuse, widening parks, lost authority withdraws', () => {
  let env: TestWorkflowEnvironment;
  let t: TestDatabase;
  let services: Services;
  let stop: () => Promise<void>;
  let n = 0;

  before(async () => {
    ({ env, t, services, stop } = await approvalEnvironment('binding'));
  });
  after(async () => {
    await stop?.();
  });

  /** A workspace with leads from one source, an owner who approves, and a key that may do everything gated. */
  async function workspace(leads = 3) {
    const w = await workspaceWithKey(t.db, {
      role: 'admin',
      scopes: [
        'business:read',
        'business:write',
        'campaigns:read',
        'campaigns:write',
        'agents:read',
        'agents:write',
        'leads:read',
        'leads:write',
      ],
    });
    const workspaceId = w.workspace.id;
    const owner = `owner${++n}@example.com`;
    await asOperator(services, addMember, { email: owner, role: 'owner' }, { workspaceId });
    const auth = await authenticateKey(t.db, w.key.key, undefined);
    if (!auth.ok) throw new Error(auth.reason);
    const actor = keyActor(auth.principal, { door: 'mcp', requestId: `req_${n}` });
    const source = `spring-${workspaceId.slice(0, 8)}`;
    const addLeads = async (count: number) => {
      for (let i = 0; i < count; i++)
        await runOperation(services, createLead, actor, {
          ...intakeBody({ source }),
          idempotency_key: randomUUID(),
        });
    };
    await addLeads(leads);
    const park = async (op: AnyOperation, input: Record<string, unknown>, as: Actor = actor) => {
      const r = await executeOrPark(services, op, as, input);
      if (!('parked' in r)) throw new Error(`${op.name} ran instead of parking`);
      return r.parked;
    };
    const approve = async (p: Parked) =>
      (await asOperator(services, approveApproval, { id: p.approval_id, as: owner })) as ApprovalView;
    const campaign = async (steps = [STEP]) =>
      (await runOperation(services, createCampaign, actor, {
        name: `Spring ${n}`,
        channel: 'email',
        audience: { sources: [source] },
        steps,
        window: ALWAYS,
      })) as { id: string };
    const agent = async (review_level = 'draft') =>
      (await runOperation(services, createAgent, actor, {
        name: `Chaser ${n}`,
        type: 'follow_up',
        cadence: { days: [1, 2, 3], time: '09:00' },
        sources: { lead_statuses: ['NEW'] },
        review_level,
      })) as { id: string };
    const audit = (action: string) =>
      t.db.query<{ outcome: string; reason: string | null; details: Record<string, unknown> }[]>(
        `SELECT outcome, reason, details FROM audit_log WHERE workspace_id = $1 AND action = $2 ORDER BY at`,
        [workspaceId, action],
      );
    return { w, workspaceId, owner, actor, source, addLeads, park, approve, campaign, agent, audit };
  }

  const campaignRow = async (id: string) =>
    (
      await t.db.query<{ status: string; steps: unknown[]; audience_size: number | null }[]>(
        'SELECT status, steps, audience_size FROM campaigns WHERE id = $1',
        [id],
      )
    )[0]!;
  const recipients = async (id: string) =>
    Number(
      (
        await t.db.query<{ n: string }[]>(
          'SELECT count(*) AS n FROM campaign_recipients WHERE campaign_id = $1',
          [id],
        )
      )[0]!.n,
    );

  describe('campaigns', () => {
    for (const change of [
      { what: 'steps', edit: { steps: [{ ...STEP, body: 'Rewritten after the request' }] } },
      { what: 'audience', edit: { audience: { statuses: ['NEW'] } } },
      { what: 'window', edit: { window: { weekdays: [1], start_hour: 9, end_hour: 10 } } },
      { what: 'name, steps', edit: { name: 'Other', steps: [{ ...STEP, subject: 'Other {first_name}' }] } },
    ])
      it(`send parked, then ${change.what} changed: the approval runs nothing, the request ends FAILED saying what changed`, async () => {
        const s = await workspace();
        const c = await s.campaign();
        const p = await s.park(sendCampaign, { campaignId: c.id });
        assert.equal(p.summary, `Send the email campaign "Spring ${n}" (1 step) to 3 people now`);
        await runOperation(services, updateCampaign, s.actor, { campaignId: c.id, ...change.edit });
        const outcome = await s.approve(p);
        assert.equal(outcome.status, 'FAILED');
        assert.equal(
          outcome.reason?.startsWith(`changed since approval was requested: ${change.what}`),
          true,
          outcome.reason!,
        );
        assert.equal(outcome.error?.refused_by, 'gate');
        assert.deepEqual(outcome.error?.changed, change.what.split(', '));
        const row = await campaignRow(c.id);
        assert.equal(row.status, 'DRAFT', 'nothing ran');
        assert.equal(await recipients(c.id), 0, 'nobody was queued');
        const task = taskOf(outcome);
        assert.equal(task.status, 'failed', 'the assistant’s task fails');
        assert.equal(task.failure?.reason, outcome.reason);
        assert.match(task.statusMessage, /changed since approval was requested/);
        const refused = (await s.audit('campaign.send')).find((r) => r.outcome !== 'parked');
        assert.equal(refused?.outcome, 'refused');
        assert.match(refused?.reason ?? '', /changed since approval was requested/);
        const mine = await runOperation(services, getApproval, s.actor, { approvalId: p.approval_id });
        assert.equal(mine.status, 'FAILED');
      });

    it('launch parked, nothing changed: it runs exactly as snapshotted, to the audience counted then', async () => {
      const s = await workspace();
      const c = await s.campaign([
        STEP,
        { subject: 'Day two', body: 'Again, {first_name}', delay_hours: 24 },
      ]);
      const p = await s.park(launchCampaign, { campaignId: c.id });
      assert.equal(p.summary, `Launch the email campaign "Spring ${n}" (2 steps) to 3 people`);
      const [stored] = await t.db.query<
        {
          effect: {
            bound: { steps: unknown[] };
            counted: { audience: number };
            members: { audience: { ids: string[]; digest: string; sample: unknown[] } };
            digest: string;
          };
        }[]
      >('SELECT effect FROM approvals WHERE id = $1', [p.approval_id]);
      assert.equal(stored!.effect.counted.audience, 3);
      assert.match(stored!.effect.digest, /^[0-9a-f]{64}$/);
      const audience = stored!.effect.members.audience;
      assert.equal(audience.ids.length, 3, 'the people counted are kept with the snapshot');
      assert.equal(audience.sample.length, 3);
      const seen = await runOperation(services, getApproval, s.actor, { approvalId: p.approval_id });
      assert.deepEqual(
        seen.effect?.members,
        { audience: { count: 3, digest: audience.digest } },
        'what travels names them by count and digest only',
      );
      const outcome = await s.approve(p);
      assert.equal(outcome.status, 'EXECUTED', JSON.stringify(outcome.error));
      const row = await campaignRow(c.id);
      assert.equal(row.status, 'RUNNING');
      assert.equal(row.audience_size, 3);
      assert.deepEqual(
        (row.steps as { subject: string; body: string }[]).map((x) => [x.subject, x.body]),
        (stored!.effect.bound.steps as { subject: string; body: string }[]).map((x) => [x.subject, x.body]),
      );
      const ran = (await s.audit('campaign.launch')).find((r) => r.outcome === 'allowed');
      assert.equal(ran?.details.effect_digest, stored!.effect.digest);
    });

    it('leads that joined the audience after the request are left out: the run fixes only those approved, and says so', async () => {
      const s = await workspace(3);
      const c = await s.campaign();
      const p = await s.park(sendCampaign, { campaignId: c.id });
      await s.addLeads(6); // 3 → 9 matching: the six are no change of the definition, and nobody approved them
      const outcome = await s.approve(p);
      assert.equal(outcome.status, 'EXECUTED', JSON.stringify(outcome.error));
      assert.equal(await recipients(c.id), 3);
      assert.equal((await campaignRow(c.id)).audience_size, 3);
      const leftOut = { joined_since: 6, no_longer_qualify: 0 };
      assert.deepEqual((outcome.outcome as { left_out: unknown }).left_out, leftOut);
      const ran = (await s.audit('campaign.send')).find((r) => r.outcome === 'allowed');
      assert.deepEqual(ran?.details.left_out, leftOut);
    });

    it('approved leads that no longer match are skipped; when none is left, nothing is queued', async () => {
      const s = await workspace(2);
      const c = await s.campaign();
      const p = await s.park(sendCampaign, { campaignId: c.id });
      await t.db.query(`UPDATE leads SET archived_at = now() WHERE source = $1`, [s.source]);
      await s.addLeads(1);
      const outcome = await s.approve(p);
      assert.equal(outcome.status, 'FAILED');
      assert.equal(
        outcome.reason,
        'none of the 2 people approved still match the audience, and the 1 person who joined it since was not approved: nothing was sent; ask for approval again.',
      );
      assert.equal(outcome.error?.refused_by, 'gate');
      assert.equal(await recipients(c.id), 0);
      assert.equal((await campaignRow(c.id)).status, 'DRAFT');
    });

    it('an edit racing the approval: the edited version is never sent, and every outcome follows the order', async () => {
      const s = await workspace(2);
      const outcomes: string[] = [];
      for (let i = 0; i < 20; i++) {
        const c = await s.campaign();
        const p = await s.park(sendCampaign, { campaignId: c.id });
        const editFirst = i % 2 === 0;
        const edit = { campaignId: c.id, steps: [{ ...STEP, body: `Edited ${i}` }] };
        // Hold the campaign's row, queue both on it in a known order, then let go: PostgreSQL grants
        // the row to its waiters in turn, so the edit lands before or after the approval's lock.
        const q = t.db.createQueryRunner();
        await q.connect();
        await q.startTransaction();
        await q.query('SELECT 1 FROM campaigns WHERE id = $1 FOR UPDATE', [c.id]);
        const waiting = async (count: number) =>
          waitFor(
            `${count} waiting on the campaign`,
            async () => {
              const [r] = await t.db.query<{ n: string }[]>(
                `SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%campaigns%'`,
              );
              return Number(r!.n) >= count ? true : undefined;
            },
            20_000,
            10,
          );
        const settled = (work: Promise<unknown>) =>
          work.then(
            (v) => ({ ok: true as const, v }),
            (e: unknown) => ({ ok: false as const, e }),
          );
        let editing: Promise<{ ok: boolean }>;
        let approving: Promise<{ ok: boolean; v?: unknown }>;
        if (editFirst) {
          editing = settled(runOperation(services, updateCampaign, s.actor, edit));
          await waiting(1);
          approving = settled(s.approve(p));
        } else {
          approving = settled(s.approve(p));
          await waiting(1);
          editing = settled(runOperation(services, updateCampaign, s.actor, edit));
        }
        await waiting(2);
        await q.rollbackTransaction();
        await q.release();
        const [edited, approved] = [await editing, await approving];
        const view = (approved as { v: ApprovalView }).v;
        const row = await campaignRow(c.id);
        const body = (row.steps as { body: string }[])[0]!.body;
        if (editFirst) {
          assert.equal(edited.ok, true, 'the edit ran first');
          assert.equal(view.status, 'FAILED', 'then the approval found it changed');
          assert.equal(row.status, 'DRAFT');
          assert.equal(await recipients(c.id), 0);
        } else {
          assert.equal(view.status, 'EXECUTED', 'the approval ran first');
          assert.equal(edited.ok, false, 'then the edit found it sent: only a draft can be edited');
          assert.equal(body, STEP.body, 'what runs is what was approved');
        }
        outcomes.push(`${editFirst ? 'edit' : 'approve'} first: ${view.status}`);
      }
      assert.equal(outcomes.filter((o) => o === 'edit first: FAILED').length, 10);
      assert.equal(outcomes.filter((o) => o === 'approve first: EXECUTED').length, 10);
    });

    it('approval show prints every step with its placeholders, the audience size, and who asked; then what changed', async () => {
      const s = await workspace();
      const c = await s.campaign();
      const p = await s.park(sendCampaign, { campaignId: c.id });
      const shown = await asOperator(services, showApproval, { id: p.approval_id });
      assert.equal(shown.requester.still_valid, true);
      assert.equal(shown.requester.key_state, 'live');
      assert.deepEqual(shown.changed_since_requested, []);
      const text = approvalText(shown);
      assert.match(text, /to 3 people now/);
      assert.match(text, /subject: Spring \{first_name\}/);
      assert.match(text, /body: Hello \{first_name\}, our spring offer\./);
      assert.match(text, /audience: 3/);
      assert.match(text, /Whom it reaches \(audience\), as counted when asked: 3 people/);
      assert.match(text, /^ {2}Ana Lima <ana\.lima\.\d+\.[0-9a-f]{8}@example\.com>$/m);
      assert.match(text, /channel: email/);
      assert.match(text, /window:\n\s+weekdays: 1, 2, 3, 4, 5, 6, 7/);
      assert.match(
        text,
        new RegExp(
          `Asked by key "${s.w.key.name}" \\(${s.w.key.prefix}, live\\), owner ${s.w.email} \\(admin\\)`,
        ),
      );
      assert.match(text, /still valid/);
      await runOperation(services, updateCampaign, s.actor, {
        campaignId: c.id,
        steps: [{ ...STEP, body: 'Changed' }],
      });
      const after = approvalText(await asOperator(services, showApproval, { id: p.approval_id }));
      assert.match(after, /Since it was asked: CHANGED \(steps\); approving it will be refused\./);
    });
  });

  describe('agents', () => {
    it('start parked as draft, then widened to send with higher limits: the approval starts nothing', async () => {
      const s = await workspace();
      const a = await s.agent('draft');
      const p = await s.park(startAgent, { agentId: a.id });
      assert.match(
        p.summary,
        /review level draft \(its messages wait for a person to review them\), up to 25 a run/,
      );
      await runOperation(services, configureAgent, s.actor, {
        agentId: a.id,
        review_level: 'send',
        limits: { per_run: 200, per_day: 1000, per_lead_per_week: 3 },
      });
      const outcome = await s.approve(p);
      assert.equal(outcome.status, 'FAILED');
      assert.match(outcome.reason!, /^changed since approval was requested: limits, review_level/);
      const [row] = await t.db.query<{ status: string }[]>('SELECT status FROM agents WHERE id = $1', [a.id]);
      assert.equal(row!.status, 'DRAFT');
    });

    it('run_now parked, nothing changed: it runs as approved', async () => {
      const s = await workspace();
      const a = await s.agent('draft');
      const p = await s.park(runAgentNow, { agentId: a.id });
      assert.match(p.summary, /once now, review level draft/);
      assert.equal((await s.approve(p)).status, 'EXECUTED');
    });

    it('widening a running agent parks (draft → send, limits up); narrowing runs at once', async () => {
      const s = await workspace();
      const a = await s.agent('draft');
      await asOperator(services, startAgent, { agentId: a.id });
      const configure = (input: Record<string, unknown>) =>
        executeOrPark(services, configureAgent, s.actor, { agentId: a.id, ...input });
      const settings = async () =>
        (
          await t.db.query<{ review_level: string; limits: { per_run: number } }[]>(
            'SELECT review_level, limits FROM agents WHERE id = $1',
            [a.id],
          )
        )[0]!;

      const toSend = await configure({ review_level: 'send' });
      assert.ok('parked' in toSend, 'draft → send on an ACTIVE agent parks');
      assert.equal(
        toSend.parked.summary,
        `Configure the follow-up agent "Chaser ${n}" (ACTIVE), widening it: review level draft → send (its messages go out without review)`,
      );
      assert.equal((await settings()).review_level, 'draft', 'nothing changed yet');

      const up = await configure({ limits: { per_run: 50 } });
      assert.ok('parked' in up, 'a higher limit parks');
      assert.match(up.parked.summary, /per run 25 → 50/);

      const down = await configure({ limits: { per_run: 10 } });
      assert.ok(!('parked' in down), 'a lower limit runs at once');
      assert.equal((await settings()).limits.per_run, 10);

      const wider = await configure({ sources: { lead_statuses: ['NEW', 'CONTACTED'] } });
      assert.ok('parked' in wider, 'a new source parks');
      assert.match(wider.parked.summary, /lead statuses adds CONTACTED/);

      // The limit changed after "limits up" parked: that request no longer matches.
      assert.equal((await s.approve(up.parked)).status, 'FAILED');
      const approved = await s.approve(toSend.parked);
      assert.equal(approved.status, 'FAILED', 'limits changed since it was asked too');
      const again = await configure({ review_level: 'send' });
      assert.ok('parked' in again);
      assert.equal((await s.approve(again.parked)).status, 'EXECUTED');
      assert.equal((await settings()).review_level, 'send');

      const back = await configure({ review_level: 'draft' });
      assert.ok(!('parked' in back), 'send → draft runs at once');
      assert.equal((await settings()).review_level, 'draft');

      const draftAgent = await s.agent('draft');
      const onDraft = await executeOrPark(services, configureAgent, s.actor, {
        agentId: draftAgent.id,
        review_level: 'send',
      });
      assert.ok(!('parked' in onDraft), 'a draft agent is configured freely: its start is what is approved');
    });
  });

  describe('connections', () => {
    it('disconnect parked, then the account changed: refused; unchanged: runs', async () => {
      const s = await workspace(0);
      const changed = await asOperator(
        services,
        addConnection,
        { system: 'google_calendar' },
        { workspaceId: s.workspaceId },
      );
      const p = await s.park(disconnectConnection, { connectionId: changed.id });
      await t.db.query(`UPDATE connections SET username = 'someone-else' WHERE id = $1`, [changed.id]);
      const refused = await s.approve(p);
      assert.equal(refused.status, 'FAILED');
      assert.match(refused.reason!, /^changed since approval was requested: account/);
      await t.db.query(`UPDATE connections SET system = 'hubspot' WHERE id = $1`, [changed.id]);
      const kept = await asOperator(
        services,
        addConnection,
        { system: 'google_calendar' },
        { workspaceId: s.workspaceId },
      );
      const p2 = await s.park(disconnectConnection, { connectionId: kept.id });
      assert.equal((await s.approve(p2)).status, 'EXECUTED');
    });
  });

  describe("a requester's lost authority", () => {
    const statusOf = async (id: string) =>
      (
        await t.db.query<{ status: string; reason: string }[]>(
          'SELECT status, reason FROM approvals WHERE id = $1',
          [id],
        )
      )[0]!;

    it('revoking the key withdraws every request it parked, with the revocation; approving one later changes nothing', async () => {
      const s = await workspace();
      const c = await s.campaign();
      const a = await s.agent();
      const p1 = await s.park(sendCampaign, { campaignId: c.id });
      const p2 = await s.park(startAgent, { agentId: a.id });
      await asOperator(services, revokeApiKey, { id: s.actor.ctx.keyId });
      for (const p of [p1, p2])
        assert.deepEqual(await statusOf(p.approval_id), {
          status: 'CANCELLED',
          reason: 'requester key revoked',
        });
      const [revoked] = await s.audit('key.revoke');
      assert.deepEqual(
        (revoked!.details.withdrawn_approvals as string[]).sort(),
        [p1.approval_id, p2.approval_id].sort(),
      );
      const handle = env.client.workflow.getHandle(approvalWorkflowId(p1.approval_id));
      assert.equal(
        ((await handle.result()) as ApprovalView).status,
        'CANCELLED',
        'its workflow was told and ended',
      );
      const err = await refusal(s.approve(p2));
      assert.equal(err.code, 'conflict');
      assert.equal((await campaignRow(c.id)).status, 'DRAFT');
      // The assistant asking after its request (its in-memory principal; a new request would be refused).
      const task = taskOf(await runOperation(services, getApproval, s.actor, { approvalId: p1.approval_id }));
      assert.equal(task.status, 'cancelled');
      assert.match(task.statusMessage, /requester key revoked/);
    });

    it('demoting the owner withdraws what the new role may not ask; removing them withdraws the rest', async () => {
      const s = await workspace();
      const c = await s.campaign();
      const a = await s.agent();
      const conn = await asOperator(
        services,
        addConnection,
        { system: 'google_calendar' },
        { workspaceId: s.workspaceId },
      );
      const pCampaign = await s.park(sendCampaign, { campaignId: c.id }); // campaigns need member
      const pAgent = await s.park(startAgent, { agentId: a.id }); // agents:write needs admin
      const pConn = await s.park(disconnectConnection, { connectionId: conn.id }); // admin
      const ownerEmail = s.w.email;
      await asOperator(
        services,
        setMemberRole,
        { email: ownerEmail, role: 'member' },
        { workspaceId: s.workspaceId },
      );
      assert.equal((await statusOf(pAgent.approval_id)).status, 'CANCELLED');
      assert.equal((await statusOf(pConn.approval_id)).status, 'CANCELLED');
      assert.equal((await statusOf(pAgent.approval_id)).reason, "requester's role lowered to member");
      assert.equal(
        (await statusOf(pCampaign.approval_id)).status,
        'PENDING',
        'a member may still ask to send',
      );
      await asOperator(services, removeMember, { email: ownerEmail }, { workspaceId: s.workspaceId });
      assert.deepEqual(await statusOf(pCampaign.approval_id), {
        status: 'CANCELLED',
        reason: 'requester removed from the workspace',
      });
      assert.equal((await refusal(s.approve(pCampaign))).code, 'conflict');
      assert.equal((await campaignRow(c.id)).status, 'DRAFT');
    });

    it('a key that expired while its request waited: the approval is refused with that reason', async () => {
      const s = await workspace();
      const c = await s.campaign();
      const p = await s.park(sendCampaign, { campaignId: c.id });
      await t.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        s.actor.ctx.keyId,
      ]);
      const shown = await asOperator(services, showApproval, { id: p.approval_id });
      assert.equal(shown.requester.key_state, 'expired');
      assert.match(approvalText(shown), /NO LONGER VALID/);
      const outcome = await s.approve(p);
      assert.equal(outcome.status, 'FAILED');
      assert.match(outcome.reason!, /^requester key expired/);
      assert.equal((await campaignRow(c.id)).status, 'DRAFT');
    });
  });

  it('a request from before snapshots never runs: it ends FAILED with "approval predates snapshots"', async () => {
    const s = await workspace();
    const c = await s.campaign();
    const p = await s.park(sendCampaign, { campaignId: c.id });
    const [owner] = await t.db.query<{ user_id: string }[]>(
      `SELECT m.user_id FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = $1`,
      [s.owner],
    );
    await t.db.query(
      `UPDATE approvals SET effect = NULL, status = 'APPROVED', decided_by = $2 WHERE id = $1`,
      [p.approval_id, owner!.user_id],
    );
    const outcome = await runApproved(services, p.approval_id);
    assert.equal(outcome.status, 'FAILED');
    assert.match(outcome.reason!, /^approval predates snapshots/);
    assert.equal(taskOf(outcome).status, 'failed');
    assert.equal((await campaignRow(c.id)).status, 'DRAFT');
  });
});
