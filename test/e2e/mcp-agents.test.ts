import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import { approveApproval } from '../../domain/approvals/operations/approve';
import type { ApprovalView } from '../../domain/approvals/views';
import { approvalGate } from '../../infra/temporal/approvals';
import { agentScheduler } from '../../infra/temporal/agents';
import { addMember } from '../../domain/identity/operations/member-add';
import { waitFor } from '../../tooling/processes';
import { startSmtpSink } from '../../tooling/smtp-sink';
import { testApp } from '../helpers/api';
import { workspaceWithKey, zoneAtNoon } from '../helpers/fixtures';
import { intakeBody, postLead } from '../helpers/leads';
import { mcpClient, serve, structured, textOf } from '../helpers/mcp';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

const count = async (s: WebhookStack, sql: string, params: unknown[]) =>
  (await s.db.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${sql}`, params))[0]!.n;

/**
 * AI agents through the official MCP client, with the real worker (its relay keeps each agent's
 * Temporal schedule in step), approvals, the Temporal dev server and an SMTP server.
 */
describe('AI agents through the assistant endpoint: drafts, gated start and run-now, pause at once, schedules', () => {
  let s: WebhookStack;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let api: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    smtp = await startSmtpSink();
    s = await startWebhookStack({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'team@acme.example' } });
    const client = () => Promise.resolve(s.client);
    api = await serve(
      testApp(s.db, {
        ports: {
          approvals: approvalGate(s.db, client, s.config.temporalTaskQueue, s.config),
          agents: { schedule: agentScheduler(client, s.config.temporalTaskQueue).describe },
        },
        config: { publicUrl: s.config.publicUrl },
      }),
    );
  });
  after(async () => {
    await api?.close();
    await s?.stop();
    await smtp.stop();
  });

  async function setup(leads: number) {
    const w = await workspaceWithKey(s.db, {
      role: 'admin',
      scopes: ['agents:read', 'agents:write', 'leads:read', 'leads:write'],
    });
    const workspaceId = w.workspace.id;
    const zone = zoneAtNoon();
    await s.db.query(`UPDATE workspaces SET timezone = $2 WHERE id = $1`, [workspaceId, zone]);
    const owner = `owner.${workspaceId.slice(0, 8)}@example.com`;
    await s.run(addMember, { email: owner, role: 'owner' }, { workspaceId });
    const source = `ads-${workspaceId.slice(0, 8)}`;
    const emails: string[] = [];
    for (let i = 0; i < leads; i++) {
      const body = intakeBody({ source });
      assert.equal((await postLead(s.app, w.key.key, body)).status, 201);
      emails.push(body.email);
    }
    const mcp = await mcpClient(api.url, w.key.key, { protocolVersion: '2025-11-25' });
    const approve = async (approvalId: string) =>
      (await s.run(approveApproval, { id: approvalId, as: owner })) as ApprovalView;
    return { workspaceId, zone, emails, mcp, approve, source };
  }

  it('creates agents as drafts; refuses a model, temperature, token budget or system prompt, and bad settings, naming the field', async () => {
    const { mcp, workspaceId } = await setup(0);
    const made = await mcp.call('agent.create', { name: 'Chaser', type: 'follow_up' });
    const agent = structured<{ id: string; status: string; review_level: string }>(made);
    assert.equal(agent.status, 'DRAFT');
    assert.equal(agent.review_level, 'draft', 'messages wait for a person unless told otherwise');

    for (const field of ['model', 'temperature', 'token_budget', 'system_prompt']) {
      const value = field === 'temperature' || field === 'token_budget' ? 1 : 'x';
      for (const [tool, args] of [
        ['agent.create', { name: 'Twin', type: 'follow_up', [field]: value }],
        ['agent.configure', { agentId: agent.id, [field]: value }],
      ] as const) {
        const refused = await mcp.call(tool, args);
        assert.equal(refused.isError, true, `${tool} with ${field}`);
        assert.match(textOf(refused), new RegExp(`^invalid_request: ${field} cannot be set`));
      }
    }
    const refusedWith = async (args: Record<string, unknown>, pattern: RegExp) => {
      const r = await mcp.call('agent.configure', { agentId: agent.id, ...args });
      assert.equal(r.isError, true);
      assert.match(textOf(r), pattern);
    };
    await refusedWith(
      { cadence: { days: [], time: '09:00' } },
      /cadence\.days must name at least one day: a cadence with none never fires/,
    );
    await refusedWith({ cadence: { days: [1], time: '25:00' } }, /cadence\.time must be HH:MM/);
    await refusedWith({ limits: { per_run: 0 } }, /limits\.per_run must be at least 1/);
    await refusedWith({ limits: { per_day: 5000 } }, /limits\.per_day must be at most 1000/);
    await refusedWith(
      { sources: { prospect_lists: ['Q4'] } },
      /sources\.prospect_lists are for prospecting agents/,
    );

    await mcp.call('agent.configure', {
      agentId: agent.id,
      cadence: { days: [1, 2, 3, 4, 5], time: '09:00' },
    });
    const noSources = await mcp.call('agent.start', { agentId: agent.id });
    assert.equal(noSources.isError, true, 'refused before a person is asked');
    assert.match(
      textOf(noSources),
      /^invalid_request: sources: a follow-up agent needs lead_statuses or lead_sources/,
    );
    assert.equal(await count(s, 'approvals WHERE workspace_id = $1', [workspaceId]), 0, 'nothing parked');
    assert.equal(await count(s, 'agents WHERE workspace_id = $1', [workspaceId]), 1, 'no other agent made');
    const [row] = await s.db.query(`SELECT cadence, limits FROM agents WHERE id = $1`, [agent.id]);
    assert.deepEqual(
      row.limits,
      { per_run: 25, per_day: 100, per_lead_per_week: 1 },
      'bad limits changed nothing',
    );
    await mcp.client.close();
  });

  it('parks start; approved, it is a schedule in the workspace zone; pause is at once; run_now parks and runs once; stop deletes it', async () => {
    const { mcp, approve, emails, source, zone } = await setup(2);
    const agent = structured<{ id: string }>(
      await mcp.call('agent.create', {
        name: 'Weekday chaser',
        type: 'follow_up',
        cadence: { days: [1, 2, 3, 4, 5], time: '09:00' },
        sources: { lead_sources: [source] },
        review_level: 'send',
      }),
    );
    const schedule = s.client.schedule.getHandle(`agent:${agent.id}`);
    const described = () =>
      schedule.describe().catch((err: unknown) => {
        if (err instanceof ScheduleNotFoundError) return undefined;
        throw err;
      });

    const started = await mcp.call('agent.start', { agentId: agent.id });
    const parked = structured<{ status: string; approval_id: string; summary: string }>(started);
    assert.equal(parked.status, 'pending_approval');
    assert.match(textOf(started), /^Nothing has happened yet\./);
    assert.equal(
      parked.summary,
      'Start the follow-up agent "Weekday chaser", running Mon, Tue, Wed, Thu, Fri at 09:00, review level send (its messages are sent at once), up to 25 a run, 100 a day and 1 per lead a week',
    );
    assert.equal(
      structured<{ status: string }>(await mcp.call('agent.get', { agentId: agent.id })).status,
      'DRAFT',
    );
    assert.equal(await described(), undefined, 'no schedule before approval');

    assert.equal((await approve(parked.approval_id)).status, 'EXECUTED');
    const d = await waitFor('the agent schedule', described, 20_000, 100);
    assert.equal(d.spec.timezone, zone);
    const [calendar] = d.spec.calendars!;
    assert.deepEqual(
      [calendar!.dayOfWeek.map((r) => r.start), calendar!.hour, calendar!.minute],
      [
        ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'],
        [{ start: 9, end: 9, step: 1 }],
        [{ start: 0, end: 0, step: 1 }],
      ],
    );
    assert.equal(d.state.paused, false);
    assert.equal(d.policies.overlap, ScheduleOverlapPolicy.SKIP);
    const got = structured<{ status: string; schedule: { exists: boolean; next_runs: string[] } }>(
      await mcp.call('agent.get', { agentId: agent.id }),
    );
    assert.equal(got.status, 'ACTIVE');
    assert.equal(got.schedule.exists, true);
    for (const t of got.schedule.next_runs) {
      const local = new Intl.DateTimeFormat('en-GB', {
        timeZone: zone,
        weekday: 'short',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(new Date(t));
      assert.match(local, /^(Mon|Tue|Wed|Thu|Fri) 09:00$/, `${t} is 09:00 on a weekday in ${zone}`);
    }

    const paused = await mcp.call('agent.pause', { agentId: agent.id });
    assert.equal(structured<{ status: string }>(paused).status, 'PAUSED', 'pause is never gated');
    await waitFor(
      'the schedule paused',
      async () => ((await described())?.state.paused ? true : undefined),
      20_000,
      100,
    );

    const now = structured<{ status: string; approval_id: string }>(
      await mcp.call('agent.run_now', { agentId: agent.id }),
    );
    assert.equal(now.status, 'pending_approval');
    assert.equal(
      smtp.received.filter((r) => emails.some((e) => r.to.includes(e))).length,
      0,
      'nothing sent yet',
    );
    assert.equal((await approve(now.approval_id)).status, 'EXECUTED');
    for (const e of emails)
      await waitFor(
        `the chase reaching ${e}`,
        async () => smtp.received.some((r) => r.to.includes(e)) || undefined,
        30_000,
        100,
      );
    const runs = await waitFor(
      'the run to finish',
      async () => {
        const r = structured<{
          data: { trigger: string; status: string; workflow_id: string; actions: { kind: string }[] }[];
        }>(await mcp.call('agent.runs', { agentId: agent.id }));
        return r.data[0]?.status === 'COMPLETED' ? r : undefined;
      },
      20_000,
      100,
    );
    assert.equal(runs.data.length, 1, 'run once');
    assert.equal(runs.data[0]!.trigger, 'run_now');
    assert.match(runs.data[0]!.workflow_id, new RegExp(`^agent:${agent.id}-now-`));
    assert.deepEqual(
      runs.data[0]!.actions.map((a) => a.kind),
      ['sent', 'sent'],
    );

    // The schedule's own run at a past 09:00 slot (a backfill): named for its slot, and a paused
    // agent's scheduled run does nothing.
    const slot = new Date(got.schedule.next_runs[0]!).getTime() - 7 * 86_400_000;
    await schedule.backfill({
      start: new Date(slot - 60_000),
      end: new Date(slot + 60_000),
      overlap: ScheduleOverlapPolicy.ALLOW_ALL,
    });
    const slotId = `agent:${agent.id}-${new Date(slot).toISOString().replace(/\.\d{3}Z$/, 'Z')}`;
    const [scheduled] = await waitFor(
      'the backfilled run',
      async () => {
        const r = await s.db.query<{ status: string; note: string }[]>(
          `SELECT status, note FROM agent_runs WHERE workflow_id = $1 AND status <> 'RUNNING'`,
          [slotId],
        );
        return r.length ? r : undefined;
      },
      20_000,
      100,
    );
    assert.deepEqual({ ...scheduled }, { status: 'COMPLETED', note: 'the agent is PAUSED: nothing done' });
    for (const e of emails)
      assert.equal(smtp.received.filter((r) => r.to.includes(e)).length, 1, 'each lead once');

    const stopped = await mcp.call('agent.stop', { agentId: agent.id });
    assert.equal(structured<{ status: string }>(stopped).status, 'STOPPED');
    await waitFor(
      'the schedule deleted',
      async () => ((await described()) === undefined ? true : undefined),
      20_000,
      100,
    );
    await mcp.client.close();
  });
});
