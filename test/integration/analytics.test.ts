import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { analyticsSummary } from '../../domain/analytics/operations/summary';
import { replyToConversation } from '../../domain/conversations/operations/conversation-reply';
import { authenticateKey } from '../../domain/identity/authenticate';
import { keyActor } from '../../domain/kernel/actor';
import type { Scope } from '../../domain/kernel/permissions';
import { runOperation } from '../../domain/kernel/runner';
import { setLeadStatus } from '../../domain/leads/operations/set-status';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, refusal, workspaceWithKey } from '../helpers/fixtures';
import { testServices } from '../../tooling/services';

/**
 * A data set whose answers are known, in America/New_York (daylight saving starts 8 March 2026), for
 * March 2026: leads on both sides of each local midnight, a lead BOOKED then LOST, one WON without being
 * BOOKED, first answers 60 s, 300 s and 3600 s after arrival, campaign sends of each outcome, and
 * agent actions; plus another workspace's lead and an archived one that must not count.
 */
describe('analytics.summary: figures checked against a seeded data set', () => {
  let t: TestDatabase;
  let ws: string;
  let other: string;
  const key = async (scopes: Scope[], workspaceId?: string) => {
    const w = await workspaceWithKey(t.db, { scopes, role: 'viewer' });
    if (workspaceId)
      await t.db.query(`UPDATE api_keys SET workspace_id = $1 WHERE id = $2`, [workspaceId, w.key.id]);
    if (workspaceId)
      await t.db.query(`UPDATE memberships SET workspace_id = $1 WHERE user_id = $2`, [
        workspaceId,
        w.key.owner_user_id,
      ]);
    const auth = await authenticateKey(t.db, w.key.key, undefined);
    if (!auth.ok) throw new Error(auth.reason);
    return {
      actor: keyActor(auth.principal, { door: 'mcp', requestId: 'test' }),
      workspaceId: w.workspace.id,
    };
  };
  const lead = async (workspaceId: string, createdAt: string, source: string, extra = '') =>
    (
      await t.db.query<{ id: string }[]>(
        `INSERT INTO leads (workspace_id, first_name, email, source, created_at${extra ? ', archived_at' : ''})
         VALUES ($1, 'L', $2, $3, $4${extra ? ', now()' : ''}) RETURNING id`,
        [workspaceId, `l${Math.random().toString(36).slice(2)}@example.com`, source, createdAt],
      )
    )[0]!.id;
  const move = (id: string, ...statuses: string[]) =>
    statuses.reduce(
      (p, s) => p.then(() => t.db.query(`UPDATE leads SET status = $2 WHERE id = $1`, [id, s])),
      Promise.resolve<unknown>(undefined),
    );
  const message = (
    workspaceId: string,
    leadId: string,
    at: string,
    status = 'sent',
    campaignId: string | null = null,
    direction = 'outbound',
  ) =>
    t.db.query(
      `INSERT INTO messages (workspace_id, lead_id, channel, direction, status, body, at, campaign_id, to_address)
       VALUES ($1, $2, 'email', $3, $4, 'Hello', $5, $6, 'x@example.com')`,
      [workspaceId, leadId, direction, status, at, campaignId],
    );

  before(async () => {
    t = await freshDatabase();
    const a = await key(['analytics:read']);
    ws = a.workspaceId;
    other = (await workspaceWithKey(t.db)).workspace.id;
    await t.db.query(`UPDATE workspaces SET timezone = 'America/New_York' WHERE id = $1`, [ws]);

    const l1 = await lead(ws, '2026-03-01T05:30:00Z', 'ads'); // 00:30 on 1 March (EST): in
    const l2 = await lead(ws, '2026-03-01T04:59:00Z', 'ads'); // 23:59 on 28 February: out
    const l3 = await lead(ws, '2026-03-31T23:00:00Z', 'ads'); // 19:00 on 31 March (EDT): in
    await lead(ws, '2026-04-01T03:59:00Z', 'ads'); // 23:59 on 31 March: in
    const l5 = await lead(ws, '2026-04-01T04:00:00Z', 'ads'); // 00:00 on 1 April: out
    const l6 = await lead(ws, '2026-03-10T12:00:00Z', 'referral');
    const l7 = await lead(ws, '2026-03-15T12:00:00Z', 'ads');
    await lead(ws, '2026-03-20T12:00:00Z', 'ads', 'archived');
    await lead(other, '2026-03-20T12:00:00Z', 'ads');
    await move(l6, 'BOOKED', 'LOST');
    await move(l7, 'QUALIFIED', 'WON');

    await message(ws, l1, '2026-03-01T05:31:00Z'); // 60 s
    await message(ws, l3, '2026-03-31T23:05:00Z'); // 300 s
    await message(ws, l6, '2026-03-10T13:00:00Z'); // 3600 s
    await message(ws, l6, '2026-03-10T12:00:30Z', 'received', null, 'inbound'); // not an answer
    await message(ws, l7, '2026-03-15T12:00:10Z', 'suppressed'); // skipped: not an answer

    const [c] = await t.db.query<{ id: string }[]>(
      `INSERT INTO campaigns (workspace_id, name, channel, status, audience, steps, send_window, daily_cap)
       VALUES ($1, 'Spring', 'email', 'RUNNING', '{}', '[]', '{}', 10) RETURNING id`,
      [ws],
    );
    let step = 0;
    const send = async (leadId: string, at: string, status: string) => {
      await t.db.query(
        `INSERT INTO messages (workspace_id, lead_id, channel, direction, status, body, at, campaign_id, campaign_step, to_address)
         VALUES ($1, $2, 'email', 'outbound', $3, 'Offer', $4, $5, $6, 'x@example.com')`,
        [ws, leadId, status, at, c!.id, step++],
      );
    };
    for (const s of ['sent', 'sent', 'bounced', 'failed', 'suppressed'])
      await send(l2, '2026-03-05T15:00:00Z', s);
    await send(l5, '2026-04-02T15:00:00Z', 'sent'); // after the period

    const [agent] = await t.db.query<{ id: string }[]>(
      `INSERT INTO agents (workspace_id, name, type, limits, template_version)
       VALUES ($1, 'Chaser', 'follow_up', '{}', 'v1') RETURNING id`,
      [ws],
    );
    for (const [kind, at] of [
      ['sent', '2026-03-05T15:00:00Z'],
      ['sent', '2026-03-06T15:00:00Z'],
      ['drafted', '2026-03-06T15:00:00Z'],
      ['escalated', '2026-03-07T15:00:00Z'],
      ['sent', '2026-04-05T15:00:00Z'],
    ])
      await t.db.query(
        `INSERT INTO agent_actions (workspace_id, agent_id, kind, outcome, at) VALUES ($1, $2, $3, 'x', $4)`,
        [ws, agent!.id, kind, at],
      );
  });
  after(() => t.drop());

  it('answers every figure for March 2026 in New York', async () => {
    const { actor } = await key(['analytics:read'], ws);
    const r = await runOperation(testServices(t.db), analyticsSummary, actor, {
      from: '2026-03-01',
      to: '2026-03-31',
    });
    assert.deepEqual(r, {
      period: { from: '2026-03-01', to: '2026-03-31', timezone: 'America/New_York' },
      leads: {
        total: 5,
        by_status: { NEW: 3, CONTACTED: 0, RESPONDED: 0, QUALIFIED: 0, BOOKED: 0, WON: 1, LOST: 1 },
        by_source: { ads: 4, referral: 1 },
      },
      conversion: { booked: { count: 2, rate: 0.4 }, won: { count: 1, rate: 0.2 } },
      first_response: { median_seconds: 300, responded: 3 },
      campaigns: { sent: 3, delivered: 2, bounced: 1, failed: 1, skipped: 1 },
      agents: { sent: 2, drafted: 1, skipped: 0, escalated: 1, proposed: 0 },
    });
  });

  it('defaults to the last 30 days, answers zeros for an empty period, and is forbidden without analytics:read', async () => {
    const { actor } = await key(['analytics:read'], ws);
    const r = await runOperation(testServices(t.db), analyticsSummary, actor, {});
    const days = (Date.parse(r.period.to) - Date.parse(r.period.from)) / 86_400_000;
    assert.equal(days, 29);
    const empty = await runOperation(testServices(t.db), analyticsSummary, actor, {
      from: '2020-01-01',
      to: '2020-01-31',
    });
    assert.equal(empty.leads.total, 0);
    assert.deepEqual(empty.conversion.booked, { count: 0, rate: null });
    assert.equal(empty.first_response.median_seconds, null);
    const { actor: noScope } = await key(['leads:read'], ws);
    assert.equal(
      (await refusal(runOperation(testServices(t.db), analyticsSummary, noScope, {}))).code,
      'forbidden',
    );
  });

  it('refuses a bad period naming the field, and never counts another workspace', async () => {
    const { actor } = await key(['analytics:read'], ws);
    const bad = async (input: Record<string, unknown>, field: string, pattern: RegExp) => {
      const err = await refusal(runOperation(testServices(t.db), analyticsSummary, actor, input));
      assert.equal(err.code, 'invalid_request');
      assert.equal(err.details.field, field);
      assert.match(err.message, pattern);
    };
    await bad({ from: 'yesterday' }, 'from', /from must be a date, YYYY-MM-DD/);
    await bad({ from: '2026-02-30' }, 'from', /from must be a real date/);
    await bad({ from: '2026-03-10', to: '2026-03-01' }, 'to', /to must be on or after from/);
    await bad({ from: '2025-01-01', to: '2026-03-01' }, 'to', /at most 366 days/);
    const theirs = await asOperator(
      testServices(t.db),
      analyticsSummary,
      { from: '2026-03-01', to: '2026-03-31' },
      { workspaceId: other },
    );
    assert.equal(theirs.leads.total, 1);
  });

  it('the write paths keep the milestones: a status set through lead.set_status, a reply through conversation.reply', async () => {
    const id = await lead(ws, new Date().toISOString(), 'ads');
    await asOperator(testServices(t.db), setLeadStatus, { leadId: id, status: 'BOOKED' });
    await asOperator(testServices(t.db), setLeadStatus, { leadId: id, status: 'LOST' });
    await asOperator(testServices(t.db), replyToConversation, {
      leadId: id,
      channel: 'email',
      body: 'Hello!',
    });
    const [row] = await t.db.query(
      `SELECT status, booked_at, won_at, first_response_at FROM leads WHERE id = $1`,
      [id],
    );
    assert.equal(row.status, 'LOST');
    assert.ok(row.booked_at, 'BOOKED once, remembered after LOST');
    assert.equal(row.won_at, null);
    assert.ok(row.first_response_at, 'the reply is the first answer');
  });
});
