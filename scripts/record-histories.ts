import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import type { Client, WorkflowHandle } from '@temporalio/client';
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
import {
  AGENT,
  APPOINTMENT,
  APPROVAL,
  APPROVER,
  CAMPAIGN,
  DAY,
  DELIVERY,
  INVOICE,
  MEMBER_MAIL,
  MESSAGE,
  MINUTE,
  QUOTE,
  SOURCING_RUN,
  WORKSPACE,
  inTurn,
  scriptedActivities,
  type Answer,
} from './history-scripts';

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

/** The approval both approval recordings park: a disconnect asked for, waiting up to seven days. */
const startApproval = (client: Client, taskQueue: string) =>
  client.workflow.start(approvalWorkflow, {
    taskQueue,
    workflowId: `approval:${APPROVAL}`,
    args: [{ approvalId: APPROVAL, waitMs: 7 * DAY }],
    typedSearchAttributes: [
      { key: WORKSPACE_ID, value: WORKSPACE },
      { key: APPROVAL_OPERATION, value: 'connection.disconnect' },
      { key: APPROVAL_STATUS, value: 'PENDING' },
    ],
  });

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
    start: startApproval,
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
    start: startApproval,
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
