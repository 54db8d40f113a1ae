import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type * as yup from 'yup';
import { createAgentRunActivities } from '../../activities/agent-run';
import { smtpProvider, type EmailProvider } from '../../activities/providers/email';
import { createSendActivities } from '../../activities/send-message';
import { createAgent } from '../../domain/agents/operations/create';
import { configureAgent } from '../../domain/agents/operations/configure';
import { agentRuns } from '../../domain/agents/operations/runs';
import { discardDraft } from '../../domain/agents/operations/discard-draft';
import { listDrafts } from '../../domain/agents/operations/drafts';
import { sendDraft } from '../../domain/agents/operations/send-draft';
import { startAgent } from '../../domain/agents/operations/start';
import { agentActor } from '../../domain/agents/run';
import type { Agent } from '../../domain/agents/entities';
import type { AgentRunInput } from '../../domain/agents/workflow-contract';
import { recordInboundMessage } from '../../domain/conversations/operations/message-inbound';
import type { Operation, Services } from '../../domain/kernel/operation';
import { runOperation } from '../../domain/kernel/runner';
import { suppressContact } from '../../domain/leads/operations/contact-suppress';
import { createLogger } from '../../infra/logger';
import { startSmtpSink } from '../../tooling/smtp-sink';
import { waitFor } from '../../tooling/processes';
import { outboxSources, startRelay } from '../../worker/relay';
import { SERVICE_DEFAULTS } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, refusal, workspaceWithKey } from '../helpers/fixtures';
import { eventsFor } from '../helpers/leads';
import { timeSkippingEnvironment } from '../helpers/time-skipping';
import { servingAsCurrent, versioned, workflowCode } from '../helpers/workflow-code';
import { agentRunWorkflow } from '../../workflows/agent-run';
import { testServices } from '../../tooling/services';

const HOUR = 3_600_000;
const TASK_QUEUE = 'agents-under-test';

/** The weekday (1 Monday ... 7 Sunday) and hour of an instant in a zone. */
function local(at: Date, timeZone: string) {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'short',
    hour: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return {
    weekday: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(get('weekday')) + 1,
    hour: Number(get('hour')),
  };
}

/** The next instant after `from` that is `hour`:00 on one of `days` in `timeZone`. */
function nextSlot(from: number, days: number[], hour: number, timeZone: string): Date {
  let t = Math.ceil((from + 1) / HOUR) * HOUR;
  for (let i = 0; i < 24 * 9; i++, t += HOUR) {
    const l = local(new Date(t), timeZone);
    if (days.includes(l.weekday) && l.hour === hour) return new Date(t);
  }
  throw new Error('no slot');
}

type Action = { kind: string; lead_id: string | null; outcome: string; message_id: string | null };

/**
 * An agent's run workflow under time-skipping, started as its schedule starts it (`agent:<id>-<slot>`,
 * at the slot its cadence names in the workspace's zone), with the real activities, the relay for
 * the message outbox, and an SMTP server that counts what arrives. The schedule itself is Temporal's
 * (the time-skipping server has none): test/e2e/mcp-agents.test.ts checks it on the dev server.
 */
describe('an AI agent run under time-skipping: cadence, limits, review level, suppression, hand-over', () => {
  let env: TestWorkflowEnvironment;
  let t: TestDatabase;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let email: EmailProvider;
  let services: Services;
  let worker: Worker;
  let sender: Worker;
  let dev: Client;
  let devConnection: NativeConnection;
  let working: Promise<void>;
  let relay: ReturnType<typeof startRelay>;

  before(async () => {
    [env, t, smtp] = await Promise.all([timeSkippingEnvironment(), freshDatabase(), startSmtpSink()]);
    email = smtpProvider({ url: smtp.url, from: 'team@acme.example', pool: 2 });
    services = testServices(t.db);
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: TASK_QUEUE,
      ...workflowCode(),
      activities: createAgentRunActivities(services),
    });
    // Messages leave as in production: the relay starts `message:<id>` on the dev server (the
    // time-skipping server knows no search attributes), whose worker hands them to the SMTP server.
    const address = process.env.TEST_TEMPORAL_ADDRESS!;
    devConnection = await NativeConnection.connect({ address });
    dev = new Client({ connection: await Connection.connect({ address }) });
    const queue = `agent-messages-${process.pid}`;
    sender = await Worker.create({
      connection: devConnection,
      taskQueue: queue,
      ...workflowCode(),
      ...versioned(queue),
      activities: createSendActivities({
        db: t.db,
        services,
        email,
        publicUrl: 'https://leads.example.test',
        secretsKey: SERVICE_DEFAULTS.secretsKey,
      }),
    });
    working = Promise.all([worker.run(), sender.run()]).then(() => undefined);
    await servingAsCurrent(dev, queue);
    const unused = { sync: () => Promise.resolve(), describe: () => Promise.reject(new Error('unused')) };
    relay = startRelay({
      databaseUrl: t.url,
      log: createLogger('relay', 'warn'),
      sources: outboxSources(t.db, dev, queue, unused, { eager: () => true, searchAttributes: [] }).filter(
        (s) => s.name === 'message',
      ),
    });
    await relay.ready;
  });
  after(async () => {
    await relay?.stop();
    worker?.shutdown();
    sender?.shutdown();
    await working;
    await dev?.connection.close();
    await devConnection?.close();
    email.close();
    await env?.teardown();
    await smtp.stop();
    await t.drop();
  });

  const run = <S extends yup.AnyObjectSchema, O>(
    op: Operation<S, O>,
    input: Record<string, unknown>,
    workspaceId?: string,
  ) => asOperator(services, op, input, workspaceId ? { workspaceId } : {});

  /** A workspace (Europe/Paris) with `n` NEW leads from source `ads`, oldest first. */
  async function workspace(n: number) {
    const w = await workspaceWithKey(t.db);
    const tag = w.workspace.id.slice(0, 8);
    const leads = await t.db.query<{ id: string; email: string }[]>(
      `INSERT INTO leads (workspace_id, first_name, email, source, status, created_at)
       SELECT $1, 'Lead' || i, 'lead' || i || '.' || $2 || '@example.com', 'ads', 'NEW',
              clock_timestamp() - make_interval(secs => $3 - i)
         FROM generate_series(1, $3) AS i RETURNING id, email`,
      [w.workspace.id, tag, n],
    );
    return { workspaceId: w.workspace.id, leads };
  }

  async function agent(workspaceId: string, settings: Record<string, unknown>) {
    const a = await run(
      createAgent,
      {
        name: 'Chaser',
        type: 'follow_up',
        cadence: { days: [1, 2, 3, 4, 5], time: '09:00' },
        sources: { lead_sources: ['ads'] },
        ...settings,
      },
      workspaceId,
    );
    assert.equal(a.status, 'DRAFT');
    assert.equal((await run(startAgent, { agentId: a.id })).status, 'ACTIVE');
    return a;
  }

  /**
   * Waits (skipping time) until `slot`, then runs the agent as its schedule would at that slot. The run
   * is awaited through its row, not the workflow's result: awaiting a result lets the test server skip
   * ahead to its next timer once the workflow is done, which would move the clock by years.
   */
  async function runAt(agentId: string, slot: Date) {
    const now = await env.currentTimeMs();
    if (slot.getTime() > now) await env.sleep(slot.getTime() - now);
    const input: AgentRunInput = { agentId, trigger: 'schedule' };
    const workflowId = `agent:${agentId}-${slot.toISOString().replace(/\.\d{3}Z$/, 'Z')}`;
    await env.client.workflow.start(agentRunWorkflow, {
      taskQueue: TASK_QUEUE,
      workflowId,
      args: [input],
    });
    const run = await waitFor(`the run ${workflowId} to finish`, async () => {
      const [r] = await t.db.query<{ id: string; note: string | null; status: string }[]>(
        `SELECT id, note, status FROM agent_runs WHERE workflow_id = $1 AND status <> 'RUNNING'`,
        [workflowId],
      );
      return r;
    });
    assert.equal(run.status, 'COMPLETED');
    const [counted] = await t.db.query<{ acted: number }[]>(
      `SELECT count(*)::int AS acted FROM agent_actions WHERE run_id = $1 AND kind IN ('sent', 'drafted')`,
      [run.id],
    );
    return { runId: run.id, acted: counted!.acted, note: run.note };
  }

  const actionsOf = (runId: string) =>
    t.db.query<Action[]>(
      `SELECT kind, lead_id, outcome, message_id FROM agent_actions WHERE run_id = $1 ORDER BY at, id`,
      [runId],
    );
  const mailTo = (address: string) => smtp.received.filter((r) => r.to.includes(address));
  const slotAfter = async (days: number[], hour: number, from?: number) =>
    nextSlot(from ?? (await env.currentTimeMs()), days, hour, 'Europe/Paris');

  it('at review level draft: drafts within the per-run and per-day limits, skips a blocked contact, sends nothing until a person does', async () => {
    const { workspaceId, leads } = await workspace(5);
    await run(suppressContact, { address: leads[0]!.email }, workspaceId);
    const a = await agent(workspaceId, {
      limits: { per_run: 2, per_day: 3, per_lead_per_week: 1 },
      review_level: 'draft',
    });
    const slot = await slotAfter([1, 2, 3, 4, 5], 9);
    const first = await runAt(a.id, slot);
    assert.equal(local(slot, 'Europe/Paris').hour, 9, 'the run is at 09:00 in the workspace zone');
    assert.equal(first.acted, 2);
    assert.equal(first.note, 'limit reached: 2 per run');
    const order = (x: Action) => leads.findIndex((l) => l.id === x.lead_id);
    const acts = (await actionsOf(first.runId)).sort((x, y) => order(x) - order(y));
    assert.deepEqual(
      acts.map((x) => [x.kind, x.lead_id]),
      [
        ['skipped', leads[0]!.id],
        ['drafted', leads[1]!.id],
        ['drafted', leads[2]!.id],
      ],
    );
    assert.match(acts[0]!.outcome, /blocked on email/);

    const second = await runAt(a.id, new Date(slot.getTime() + HOUR));
    assert.equal(second.acted, 1, 'the day allows three');
    assert.equal(second.note, 'limit reached: 3 per day');

    const drafts = await run(listDrafts, { agentId: a.id }, workspaceId);
    assert.equal(drafts.count, 3);
    assert.equal(drafts.data[0]!.subject, 'Following up on your enquiry');
    assert.match(drafts.data[0]!.body, /^Hi Lead2,/);
    assert.match(drafts.data[0]!.template, /^follow_up\.first@follow-up-/);
    for (const l of leads) assert.equal(mailTo(l.email).length, 0, 'a draft sends nothing');

    const sent = await run(sendDraft, { draftId: drafts.data[0]!.id, by: 'owner@example.com' });
    assert.equal(sent.status, 'SENT');
    await run(discardDraft, { draftId: drafts.data[1]!.id });
    await waitFor(
      'the sent draft arrives',
      async () => mailTo(leads[1]!.email).length === 1 || undefined,
      15_000,
    );
    assert.equal(mailTo(leads[1]!.email)[0]!.mail.subject, 'Following up on your enquiry');
    assert.equal(mailTo(leads[2]!.email).length, 0, 'a discarded draft never leaves');
    const [lead] = await t.db.query<{ status: string; follow_up: string }[]>(
      `SELECT status, follow_up FROM leads WHERE id = $1`,
      [leads[1]!.id],
    );
    assert.deepEqual(lead, { status: 'CONTACTED', follow_up: 'ACTIVE' });
  });

  it('at review level send: sends at its slot, never outside the window, once a week per lead, the nudge a week on', async () => {
    const { workspaceId, leads } = await workspace(2);
    const a = await agent(workspaceId, { review_level: 'send' });
    const late = await slotAfter([1, 2, 3, 4, 5, 6, 7], 22);
    const outside = await runAt(a.id, late);
    assert.equal(outside.acted, 0);
    assert.match(outside.note!, /outside the sending window \(8:00 to 20:00, Europe\/Paris\)/);

    const slot = await slotAfter([1, 2, 3, 4, 5], 9);
    const r = await runAt(a.id, slot);
    assert.equal(r.acted, 2);
    for (const l of leads)
      await waitFor(
        `the chase reaches ${l.email}`,
        async () => mailTo(l.email).length === 1 || undefined,
        15_000,
      );
    assert.equal(mailTo(leads[0]!.email)[0]!.mail.subject, 'Following up on your enquiry');
    const events = await eventsFor(t.db, leads[0]!.id);
    const moved = events.find((e) => e.type === 'lead.status_changed')!;
    assert.deepEqual(moved.data.changed_by, { type: 'agent', agent_id: a.id });
    assert.equal(moved.data.status, 'CONTACTED');

    const nextDay = await runAt(a.id, await slotAfter([1, 2, 3, 4, 5], 9));
    assert.equal(nextDay.acted, 0, 'one message per lead per week');
    const weekOn = await runAt(a.id, await slotAfter([1, 2, 3, 4, 5], 9, slot.getTime() + 7 * 24 * HOUR));
    assert.equal(weekOn.acted, 2);
    await waitFor('the nudge arrives', async () => mailTo(leads[0]!.email).length === 2 || undefined, 15_000);
    assert.equal(mailTo(leads[0]!.email)[1]!.mail.subject, 'Checking in');

    const runs = await run(agentRuns, { agentId: a.id }, workspaceId);
    assert.equal(runs.count, 4);
    assert.equal(runs.data[0]!.actions.length, 2);
    assert.deepEqual(
      runs.data[0]!.actions.map((x) => x.kind),
      ['sent', 'sent'],
    );
    assert.ok(runs.data[0]!.actions.every((x) => x.message_id && x.lead_id));
  });

  it('hands a reply that needs a person over (ai.escalated, lead.handover_required) and stops follow-up; "not interested" only stops it', async () => {
    const { workspaceId, leads } = await workspace(2);
    const a = await agent(workspaceId, { review_level: 'send' });
    const r = await runAt(a.id, await slotAfter([1, 2, 3, 4, 5], 9));
    assert.equal(r.acted, 2);
    await run(recordInboundMessage, {
      leadId: leads[0]!.id,
      channel: 'email',
      body: 'Can I speak to someone about the price before Friday?',
    });
    await run(recordInboundMessage, {
      leadId: leads[1]!.id,
      channel: 'email',
      body: 'Not interested, thanks.',
    });

    const events = await eventsFor(t.db, leads[0]!.id);
    const escalated = events.find((e) => e.type === 'ai.escalated')!;
    const [handoff] = await t.db.query<{ id: string }[]>(`SELECT id FROM handoffs WHERE lead_id = $1`, [
      leads[0]!.id,
    ]);
    assert.deepEqual(
      { ...escalated.data, occurred_at: undefined },
      {
        handoff_id: handoff!.id,
        lead_id: leads[0]!.id,
        conversation_id: `${leads[0]!.id}:email`,
        reason: 'request_to_talk',
        priority: 'high',
        subject_type: 'lead',
        subject_id: leads[0]!.id,
        occurred_at: undefined,
      },
    );
    const handover = events.find((e) => e.type === 'lead.handover_required')!;
    assert.equal(handover.data.reason, 'request_to_talk');
    assert.equal(handover.data.handoff_id, handoff!.id);
    const rows = await t.db.query<{ id: string; follow_up: string; needs_attention: boolean }[]>(
      `SELECT id, follow_up, needs_attention FROM leads WHERE workspace_id = $1 ORDER BY created_at`,
      [workspaceId],
    );
    assert.deepEqual(
      rows.map((l) => [l.follow_up, l.needs_attention]),
      [
        ['STOPPED', true],
        ['STOPPED', true],
      ],
    );
    assert.equal((await eventsFor(t.db, leads[1]!.id)).filter((e) => e.type === 'ai.escalated').length, 0);
    const [declined] = await t.db.query<Action[]>(
      `SELECT kind, outcome FROM agent_actions WHERE lead_id = $1 AND run_id IS NULL`,
      [leads[1]!.id],
    );
    assert.deepEqual({ ...declined }, { kind: 'skipped', outcome: 'the lead declined: follow-up stopped' });

    const later = await runAt(a.id, new Date((await env.currentTimeMs()) + 8 * 24 * HOUR));
    assert.equal(later.acted, 0, 'follow-up stopped for both');
  });

  it('refuses an agent-initiated agent.configure or agent.create in the runner, audited', async () => {
    const { workspaceId } = await workspace(0);
    const a = await agent(workspaceId, {});
    const [row] = await t.db.query<Agent[]>(`SELECT * FROM agents WHERE id = $1`, [a.id]);
    const actor = agentActor(row!);
    const refused = await refusal(
      runOperation(services, configureAgent, actor, { agentId: a.id, review_level: 'send' }),
    );
    assert.equal(refused.code, 'forbidden');
    const created = await refusal(
      runOperation(services, createAgent, actor, { name: 'Twin', type: 'follow_up' }),
    );
    assert.equal(created.code, 'forbidden');
    const audit = await t.db.query<{ action: string; outcome: string; door: string; reason: string }[]>(
      `SELECT action, outcome, door, reason FROM audit_log WHERE workspace_id = $1 AND door = 'agent' ORDER BY id`,
      [workspaceId],
    );
    assert.deepEqual(
      audit.map((x) => [x.action, x.outcome]),
      [
        ['agent.configure', 'refused'],
        ['agent.create', 'refused'],
      ],
    );
    assert.match(audit[0]!.reason, /agents cannot configure agents/);
    const [after] = await t.db.query<Agent[]>(`SELECT review_level FROM agents WHERE id = $1`, [a.id]);
    assert.equal(after!.review_level, 'draft', 'nothing changed');
  });
});
