import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { SimplePlugin } from '@temporalio/plugin';
import { Worker } from '@temporalio/worker';
import * as prettier from 'prettier';
import type { Activities } from '../activities';
import {
  API_SEARCH_ATTRIBUTES,
  APPROVAL_OPERATION,
  APPROVAL_STATUS,
  WORKSPACE_ID,
} from '../domain/kernel/search-attributes';
import { createLogger } from '../infra/logger';
import { startTracing, temporalTracing } from '../infra/tracing';
import { repoRoot } from '../tooling/paths';
import { ensureTemporalBinaries } from '../tooling/temporal-bin';
import { installWorkerRuntime } from '../worker/runtime';
import { scheduleIds } from '../infra/temporal/workflow-ids';
import {
  agentRunWorkflow,
  appointmentWorkflow,
  approvalWorkflow,
  campaignWorkflow,
  deliverWebhookWorkflow,
  invoiceDueWorkflow,
  memberMailWorkflow,
  pingWorkflow,
  quoteExpiryWorkflow,
  reconcileDeliveriesWorkflow,
  retentionWorkflow,
  sendMessageWorkflow,
  sourcingWorkflow,
} from '../workflows';
import { decideUpdate as decideBooking } from '../workflows/appointment';
import { decideUpdate as decideRequest, withdrawnSignal } from '../workflows/approval';
import { pauseUpdate, resumeUpdate } from '../workflows/campaign';

/**
 * Records the histories test/integration/replay.test.ts replays (test/fixtures/histories/): one run of
 * each workflow workflows/index.ts exports, down a realistic path with scripted activities, on a worker
 * with the tracing plugin as the service runs it; the other paths that park a run for long
 * (`<workflow>.<path>.json`: a delivery sleeping on a Retry-After, an approval withdrawn, a campaign
 * paused and resumed, a booking declined); and the delivery and approval workflows once more on a worker
 * with no plugin and no workflow interceptor (`*.before-tracing.json`), standing for runs parked before
 * tracing came, which the traced worker must still replay.
 *
 * `npx tsx scripts/record-histories.ts [name ...]` writes the files named (`approvalWorkflow.withdrawn`),
 * or every file. Record a new path or a new workflow type; re-record a file only after changing its
 * workflow behind a patch (`patched()`, docs/temporal.md "Deploys"), and first rename the old file
 * (`<workflow>.before-<patch>.json`): the test replays every file in the folder, and the patch's old
 * branch must stay tested. Otherwise never: a stored history is worth keeping because it comes from
 * older code.
 */

const OUT = path.join(repoRoot(), 'test', 'fixtures', 'histories');
const { EventType, IndexedValueType } = temporal.api.enums.v1;
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const WORKSPACE = '3f6d2c1a-8b4e-4f0a-9c7d-5e2b1a0f9d84';
const LEAD = '9a1c7e42-0d3b-4e6f-8a25-7c4b9e1d2f60';
const DELIVERY = 'c2e8a4f1-6b3d-4a97-8e05-1d9f7b3c5a28';
const APPROVAL = '7d4b9e2c-1a6f-4c83-b5e0-2f8a6d3c9b17';
const APPOINTMENT = 'e5a2c7d9-3f1b-4e68-9d40-8b6c2a1e7f35';
const MESSAGE = '1b7f3d9a-5c2e-4a8b-96d1-4e0c8f2a6b73';
const CAMPAIGN = '4c9e1a7b-2d5f-4b30-8e6a-9f3d7c1b5e02';
const AGENT = '8e3a5c1f-7b9d-4f26-a04e-6d2b8f4c1a95';
const AGENT_RUN = '2a6d8f4b-9e1c-4d73-b5a8-3c7e1f9b2d40';
const SOURCING_RUN = '6f1b3d7e-4a8c-4e95-92b6-0d5a9c3e7f18';
const QUOTE = 'b8d4f2a6-1c9e-4b57-a3d0-7e5c2b9f4a61';
const INVOICE = 'd3f7b1e5-8a2c-4d69-b0e4-5a9f3c7d1b26';
const CONNECTION = 'a9c5e3b7-6d1f-4a84-9b27-1e8d4f6a2c50';
const KEY = '0e4a8c2f-3b7d-4e19-a6c5-8d2f1b9e7a34';
const MEMBER = '5d9b1f3a-7e2c-4b68-8f04-6a3e9c1d5b72';
const APPROVER = 'f1c5a9d3-2e8b-4c46-b7f0-9d3b5e1a8c27';
const MEMBER_MAIL = '3b8e6d2f-9c4a-4f17-a5e3-7d1c9b0e2a64';

type Answer<K extends keyof Activities> = Awaited<ReturnType<Activities[K]>>;

/**
 * Answers each of `answers` in turn, one a call: a path's script. A call past its end fails the run
 * (not retried), so a script that no longer fits its workflow stops the recorder instead of looping.
 */
const inTurn = <T>(...answers: T[]) => {
  let i = 0;
  return async (): Promise<T> => {
    if (i >= answers.length) throw ApplicationFailure.nonRetryable('the script has no more answers');
    return answers[i++]!;
  };
};

/** Stand-ins for the activities, answering what the real ones answer down each recorded path. */
function scriptedActivities(t0: number) {
  /** A time `ms` after the run began. */
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  const request = (status: Answer<'recordApprovalDecision'>['status']): Answer<'recordApprovalDecision'> => ({
    id: APPROVAL,
    status,
    operation: 'connection.disconnect',
    summary: 'Disconnect Google Calendar from Harbour Dental',
    effect: {
      bound: {
        system: 'google_calendar',
        account: { calendar_url: 'https://apidata.googleusercontent.com/caldav/v2/', username: 'desk' },
        connected_at: at(-30 * DAY),
      },
      digest: '6b1f0c3e9a27d4858e2f71c6a0b9d3e4f5a8c7b2d1e0f9a8b7c6d5e4f3a2b1c0',
    },
    requested_by: { key_id: KEY, user_id: MEMBER },
    decided_by: status === 'CANCELLED' ? null : APPROVER,
    decided_at: status === 'CANCELLED' ? null : at(5 * MINUTE),
    decided_via: status === 'CANCELLED' ? null : 'operator',
    decided_credential: null,
    decided_digest: null,
    operator_asserted: status === 'CANCELLED' ? null : { os_user: 'ops', host: 'ops-1' },
    reason: status === 'CANCELLED' ? 'withdrawn by the key that asked' : null,
    outcome:
      status === 'EXECUTED'
        ? {
            id: CONNECTION,
            system: 'google_calendar',
            name: 'Google Calendar',
            status: 'DISCONNECTED',
            connected_at: at(-30 * DAY),
            disconnected_at: at(5 * MINUTE),
          }
        : null,
    error: null,
    expires_at: at(7 * DAY),
    created_at: at(0),
    finished_at: status === 'EXECUTED' || status === 'CANCELLED' ? at(5 * MINUTE) : null,
  });
  const booking = (
    status: Answer<'placeAppointment'>['status'],
    onCalendar: boolean,
    reason: string | null,
  ): Answer<'placeAppointment'> => ({
    id: APPOINTMENT,
    lead_id: LEAD,
    status,
    starts_at: at(2 * DAY),
    ends_at: at(2 * DAY + 30 * MINUTE),
    timezone: 'Europe/London',
    title: 'Consultation',
    note: null,
    provider: 'caldav',
    on_calendar: onCalendar,
    reason,
    created_at: at(0),
    updated_at: at(10 * MINUTE),
  });
  const claimed = (attempt: number): Answer<'claimMessage'> => ({
    send: {
      id: MESSAGE,
      workspace_id: WORKSPACE,
      lead_id: LEAD,
      channel: 'email',
      subject: 'Your quote',
      body: 'Hello Sam, your quote is attached.',
      in_reply_to: null,
      marketing: false,
      to: 'sam@example.com',
      workspaceName: 'Harbour Dental',
      attempt,
    },
  });
  const defaults = {
    attemptDelivery: inTurn<Answer<'attemptDelivery'>>(
      { outcome: 'retry', status: 503 },
      // Attempt 2 finds its endpoint at its cap of attempts in flight: the jittered wait is drawn.
      { outcome: 'busy' },
      { outcome: 'succeeded', status: 200 },
    ),
    recordApprovalDecision: inTurn(request('APPROVED')),
    runApprovedRequest: inTurn(request('EXECUTED')),
    placeAppointment: inTurn(
      booking('PENDING', false, 'The calendar shows the slot busy: a person must confirm it.'),
    ),
    decideAppointment: inTurn(
      booking('CONFIRMED', true, null),
      booking('CANCELLED', true, 'The lead asked to cancel.'),
    ),
    removeCalendarEvent: inTurn<void>(undefined),
    reconcileDeliveries: inTurn<Answer<'reconcileDeliveries'>>({
      examined: 3,
      restarted: 1,
      ended: 1,
      approvals_started: 0,
      appointments_started: 0,
      secrets_destroyed: 1,
    }),
    purgeExpired: inTurn<Answer<'purgeExpired'>>({ idempotency_keys: 412, audit_rows: 5_000, events: 1_287 }),
    recordPing: inTurn(at(0)),
    claimMessage: inTurn(claimed(1), claimed(2)),
    handOverMessage: inTurn<Answer<'handOverMessage'>>(
      { kind: 'transient', error: 'SMTP 451 4.7.1 greylisted, try again later' },
      { kind: 'sent', providerMessageId: '<20261128.4f2a@mail.harbourdental.example>' },
    ),
    settleMessage: inTurn<Answer<'settleMessage'>>('retry', 'sent'),
    handOverMemberMail: inTurn<Answer<'handOverMemberMail'>>(
      { kind: 'transient', error: 'SMTP 451: 451 4.7.1 greylisted, try again later' },
      { kind: 'sent', providerMessageId: `<${MEMBER_MAIL}@leads.example>` },
    ),
    settleMemberMail: inTurn<Answer<'settleMemberMail'>>({ outcome: 'retry' }, { outcome: 'sent' }),
    sendCampaignBatch: inTurn<Answer<'sendCampaignBatch'>>(
      { state: 'sent', sent: 196, failed: 1, skipped: 3 },
      // The sending window shut: the next batch waits for it to open.
      { state: 'wait', ms: 9 * 60 * MINUTE },
      { state: 'sent', sent: 54, failed: 0, skipped: 0 },
      { state: 'stopped', status: 'COMPLETED' },
    ),
    beginAgentRun: inTurn<Answer<'beginAgentRun'>>({ runId: AGENT_RUN, go: true, note: null }),
    agentRunBatch: inTurn<Answer<'agentRunBatch'>>(
      { done: false, acted: 20, note: null },
      { done: true, acted: 0, note: 'limit reached: 20 per run' },
    ),
    finishAgentRun: inTurn<void>(undefined),
    scoreSourcingBatch: inTurn<Answer<'scoreSourcingBatch'>>(
      { done: false, scored: 468, dropped: 32 },
      { done: true, scored: 117, dropped: 9 },
    ),
    expireQuote: inTurn('EXPIRED'),
    remindOverdueInvoice: inTurn(true),
  } satisfies Partial<Activities>;
  return { defaults, request, booking };
}

type Scripts = ReturnType<typeof scriptedActivities>;

/** Waits until the run has completed `tasks` workflow tasks: it has acted on everything before. */
async function settled(handle: WorkflowHandle, tasks: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { events } = await handle.fetchHistory();
    const done =
      events?.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED).length ?? 0;
    if (done >= tasks) return;
    if (Date.now() > deadline)
      throw new Error(`${handle.workflowId} did not complete ${tasks} workflow tasks`);
    await pause(50);
  }
}

/** A scheduled run is named by its schedule and when it fired: `<queue>:retention-2026-11-24T08:00:00Z`. */
const firedAt = (id: string, t0: number) => `${id}-${new Date(t0).toISOString().replace(/\.\d{3}Z$/, 'Z')}`;

type Recording = {
  workflow: string;
  /** The path it takes, when not the workflow's usual one: the file is `<workflow>.<path>.json`. */
  path?: string;
  /** The activities' answers down this path, where they differ from the usual ones. */
  script?: (s: Scripts) => Partial<Activities>;
  /** Starts the run as the service does (its workflow id, its input). */
  start: (client: Client, taskQueue: string, t0: number) => Promise<WorkflowHandle>;
  /** What people do to the run while it waits; without it the run goes its way to its end. */
  drive?: (handle: WorkflowHandle) => Promise<void>;
};

const RECORDINGS: Recording[] = [
  {
    // Attempt 1 answers 503; 30 s later attempt 2 waits its turn for the endpoint, then succeeds.
    workflow: 'deliverWebhookWorkflow',
    start: (client, taskQueue) =>
      client.workflow.start(deliverWebhookWorkflow, {
        taskQueue,
        workflowId: `webhook-delivery:${DELIVERY}`,
        args: [{ deliveryId: DELIVERY, generation: 0, firstAttempt: 1 }],
      }),
  },
  {
    // Parked, then approved the way `approval approve --id A --as E` decides: an Update; it runs once.
    workflow: 'approvalWorkflow',
    start: (client, taskQueue) =>
      client.workflow.start(approvalWorkflow, {
        taskQueue,
        workflowId: `approval:${APPROVAL}`,
        args: [{ approvalId: APPROVAL, waitMs: 7 * DAY }],
        typedSearchAttributes: [
          { key: WORKSPACE_ID, value: WORKSPACE },
          { key: APPROVAL_OPERATION, value: 'connection.disconnect' },
          { key: APPROVAL_STATUS, value: 'PENDING' },
        ],
      }),
    drive: async (handle) => {
      await settled(handle, 1);
      await handle.executeUpdate(decideRequest, {
        args: [
          {
            decision: 'approve',
            door: 'admin',
            via: 'operator',
            approverEmail: 'owner@harbourdental.example',
            osUser: 'ops',
            host: 'ops-1',
          },
        ],
      });
    },
  },
  {
    // The calendar shows the slot busy; a person confirms it, then cancels it as the lead asked.
    workflow: 'appointmentWorkflow',
    start: (client, taskQueue, t0) =>
      client.workflow.start(appointmentWorkflow, {
        taskQueue,
        workflowId: `appointment:${APPOINTMENT}`,
        args: [{ appointmentId: APPOINTMENT, startsAt: new Date(t0 + 2 * DAY).toISOString() }],
      }),
    drive: async (handle) => {
      await settled(handle, 2);
      const by = { type: 'member', user_id: APPROVER, door: 'rest' };
      await handle.executeUpdate(decideBooking, { args: [{ action: 'confirm', by }] });
      await handle.executeUpdate(decideBooking, {
        args: [{ action: 'cancel', reason: 'The lead asked to cancel.', by }],
      });
    },
  },
  {
    workflow: 'reconcileDeliveriesWorkflow',
    start: (client, taskQueue, t0) =>
      client.workflow.start(reconcileDeliveriesWorkflow, {
        taskQueue,
        workflowId: firedAt(scheduleIds(taskQueue).reconcile, t0),
      }),
  },
  {
    workflow: 'retentionWorkflow',
    start: (client, taskQueue, t0) =>
      client.workflow.start(retentionWorkflow, {
        taskQueue,
        workflowId: firedAt(scheduleIds(taskQueue).retention, t0),
      }),
  },
  {
    workflow: 'pingWorkflow',
    start: (client, taskQueue) =>
      client.workflow.start(pingWorkflow, { taskQueue, workflowId: 'ping', args: ['hello'] }),
  },
  {
    // The provider greylists the first hand-over; the second, a minute later, is sent.
    workflow: 'sendMessageWorkflow',
    start: (client, taskQueue) =>
      client.workflow.start(sendMessageWorkflow, {
        taskQueue,
        workflowId: `message:${MESSAGE}`,
        args: [{ messageId: MESSAGE }],
      }),
  },
  {
    // A sign-in link's mail: greylisted once, sent 30 s later.
    workflow: 'memberMailWorkflow',
    start: (client, taskQueue) =>
      client.workflow.start(memberMailWorkflow, {
        taskQueue,
        workflowId: `member-mail:${MEMBER_MAIL}`,
        args: [{ mailId: MEMBER_MAIL }],
      }),
  },
  {
    // A batch; the sending window shuts until morning; the last batch; the campaign is complete.
    workflow: 'campaignWorkflow',
    start: (client, taskQueue) =>
      client.workflow.start(campaignWorkflow, {
        taskQueue,
        workflowId: `campaign:${CAMPAIGN}`,
        args: [{ campaignId: CAMPAIGN }],
      }),
  },
  {
    // One scheduled run: a batch of chases, then the run's limit ends it.
    workflow: 'agentRunWorkflow',
    start: (client, taskQueue, t0) =>
      client.workflow.start(agentRunWorkflow, {
        taskQueue,
        workflowId: firedAt(`agent:${AGENT}`, t0),
        args: [{ agentId: AGENT, trigger: 'schedule' }],
      }),
  },
  {
    // Two batches: the list's last candidates are scored in the second.
    workflow: 'sourcingWorkflow',
    start: (client, taskQueue) =>
      client.workflow.start(sourcingWorkflow, {
        taskQueue,
        workflowId: `sourcing:${SOURCING_RUN}`,
        args: [{ runId: SOURCING_RUN }],
      }),
  },
  {
    // Nobody paid: past its due date the first reminder goes out.
    workflow: 'invoiceDueWorkflow',
    start: (client, taskQueue, t0) =>
      client.workflow.start(invoiceDueWorkflow, {
        taskQueue,
        workflowId: `invoice:${INVOICE}`,
        args: [{ invoiceId: INVOICE, dueAt: new Date(t0 + 14 * DAY).toISOString() }],
      }),
  },
  {
    // Nobody answered the quote: at the end of its valid-until day it expires.
    workflow: 'quoteExpiryWorkflow',
    start: (client, taskQueue, t0) =>
      client.workflow.start(quoteExpiryWorkflow, {
        taskQueue,
        workflowId: `quote:${QUOTE}`,
        args: [{ quoteId: QUOTE, expiresAt: new Date(t0 + 30 * DAY).toISOString() }],
      }),
  },
  {
    // The receiver answers 429 asking for 45 minutes, longer than the ladder's 30 s: the ladder sleeps
    // as asked, then delivers.
    workflow: 'deliverWebhookWorkflow',
    path: 'retry-after',
    script: () => ({
      attemptDelivery: inTurn<Answer<'attemptDelivery'>>(
        { outcome: 'retry', status: 429, waitMs: 45 * MINUTE },
        { outcome: 'succeeded', status: 200 },
      ),
    }),
    start: (client, taskQueue) =>
      client.workflow.start(deliverWebhookWorkflow, {
        taskQueue,
        workflowId: `webhook-delivery:${DELIVERY}`,
        args: [{ deliveryId: DELIVERY, generation: 0, firstAttempt: 1 }],
      }),
  },
  {
    // Parked, then withdrawn by the key that asked (recorded first, then signalled): it ends CANCELLED.
    workflow: 'approvalWorkflow',
    path: 'withdrawn',
    script: ({ request }) => ({ readApprovalRequest: inTurn(request('CANCELLED')) }),
    start: (client, taskQueue) =>
      client.workflow.start(approvalWorkflow, {
        taskQueue,
        workflowId: `approval:${APPROVAL}`,
        args: [{ approvalId: APPROVAL, waitMs: 7 * DAY }],
        typedSearchAttributes: [
          { key: WORKSPACE_ID, value: WORKSPACE },
          { key: APPROVAL_OPERATION, value: 'connection.disconnect' },
          { key: APPROVAL_STATUS, value: 'PENDING' },
        ],
      }),
    drive: async (handle) => {
      await settled(handle, 1);
      await handle.signal(withdrawnSignal);
    },
  },
  {
    // Waiting for its window, the campaign is paused (the next batch finds it PAUSED, and it waits for
    // the resume), then resumed: it sends the rest and completes.
    workflow: 'campaignWorkflow',
    path: 'paused',
    script: () => ({
      sendCampaignBatch: inTurn<Answer<'sendCampaignBatch'>>(
        { state: 'wait', ms: 9 * 60 * MINUTE },
        { state: 'stopped', status: 'PAUSED' },
        { state: 'sent', sent: 250, failed: 0, skipped: 2 },
        { state: 'stopped', status: 'COMPLETED' },
      ),
    }),
    start: (client, taskQueue) =>
      client.workflow.start(campaignWorkflow, {
        taskQueue,
        workflowId: `campaign:${CAMPAIGN}`,
        args: [{ campaignId: CAMPAIGN }],
      }),
    drive: async (handle) => {
      await settled(handle, 2);
      await handle.executeUpdate(pauseUpdate);
      await settled(handle, 4);
      await handle.executeUpdate(resumeUpdate);
    },
  },
  {
    // The calendar shows the slot busy; a person declines the booking, and its event is removed.
    workflow: 'appointmentWorkflow',
    path: 'declined',
    script: ({ booking }) => ({
      decideAppointment: inTurn(booking('DECLINED', true, 'The slot is taken.')),
    }),
    start: (client, taskQueue, t0) =>
      client.workflow.start(appointmentWorkflow, {
        taskQueue,
        workflowId: `appointment:${APPOINTMENT}`,
        args: [{ appointmentId: APPOINTMENT, startsAt: new Date(t0 + 2 * DAY).toISOString() }],
      }),
    drive: async (handle) => {
      await settled(handle, 2);
      await handle.executeUpdate(decideBooking, {
        args: [
          {
            action: 'decline',
            reason: 'The slot is taken.',
            by: { type: 'member', user_id: APPROVER, door: 'rest' },
          },
        ],
      });
    },
  },
];

/** The runs a worker of before the upgrade parked: recorded again with no tracing at all. */
const BEFORE_TRACING = ['deliverWebhookWorkflow', 'approvalWorkflow'];

const fileName = (r: Recording, suffix: string) => `${r.workflow}${r.path ? `.${r.path}` : ''}${suffix}`;

/**
 * Records one run and writes its history, as the formatter keeps JSON. Each run has a server of its
 * own: the time-skipping server gives every run a ten-year execution timeout that stays armed once the
 * run has ended, and skips to it, so on a shared server each later history would be dated ten years on.
 */
async function record(testServer: string, r: Recording, plugins: SimplePlugin[], suffix: string) {
  // The same plugins on the client: a traced run's start carries the client's trace context, which is
  // what makes its workflow interceptors make spans (workflows/tracing.ts).
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: testServer } },
    plugins,
  });
  try {
    // The approval workflow sets the status operators filter on; the server must know the attributes.
    await env.connection.operatorService.addSearchAttributes({
      namespace: env.namespace ?? 'default',
      searchAttributes: Object.fromEntries(
        API_SEARCH_ATTRIBUTES.map((k) => [k.name, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
      ),
    });
    const taskQueue = 'record-histories';
    const t0 = await env.currentTimeMs();
    const scripts = scriptedActivities(t0);
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowsPath: require.resolve('../workflows'),
      activities: { ...scripts.defaults, ...r.script?.(scripts) },
      plugins,
    });
    const history = await worker.runUntil(async () => {
      // The time-skipping client's handle: awaiting its result lets the server skip the run's timers.
      const handle = await r.start(env.client, taskQueue, t0);
      await r.drive?.(handle);
      await handle.result();
      return handle.fetchHistory();
    });
    const file = path.join(OUT, `${fileName(r, suffix)}.json`);
    const options = await prettier.resolveConfig(file);
    writeFileSync(file, await prettier.format(historyToJSON(history), { ...options, filepath: file }));
    console.log(`recorded ${path.relative(repoRoot(), file)}`);
  } finally {
    await env.teardown();
  }
}

async function main() {
  await installWorkerRuntime();
  // Registers OpenTelemetry's propagator, so traced starts carry context; the spans themselves go to a
  // port nobody listens on and are dropped.
  await startTracing(
    { url: 'http://127.0.0.1:9/v1/traces', protocol: 'http/json', resourceAttributes: {} },
    'record-histories',
  );
  const { testServer } = ensureTemporalBinaries(createLogger('record-histories', 'info'));
  mkdirSync(OUT, { recursive: true });
  const named = process.argv.slice(2);
  const wanted = (r: Recording, suffix: string) => named.length === 0 || named.includes(fileName(r, suffix));
  const unknown = named.filter(
    (n) => !RECORDINGS.some((r) => fileName(r, '') === n || fileName(r, '.before-tracing') === n),
  );
  if (unknown.length > 0) throw new Error(`no recording is named ${unknown.join(', ')}`);
  for (const r of RECORDINGS.filter((r) => wanted(r, '')))
    await record(testServer, r, [temporalTracing()], '');
  for (const r of RECORDINGS.filter(
    (r) => !r.path && BEFORE_TRACING.includes(r.workflow) && wanted(r, '.before-tracing'),
  ))
    await record(testServer, r, [], '.before-tracing');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
