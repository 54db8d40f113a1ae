import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { HistoryAndWorkflowId } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { temporalTracing } from '../../infra/tracing';
import { installWorkerRuntime } from '../../worker/runtime';
import * as workflows from '../../workflows';
import { workflowCode } from '../helpers/workflow-code';

/**
 * Recorded from older code by scripts/record-histories.ts: one per workflow, the other paths that park
 * a run for long (`<workflow>.<path>.json`), and runs from before a change (`<workflow>.before-<change>.json`).
 */
const HISTORIES = path.join(__dirname, '..', 'fixtures', 'histories');

const files = () => readdirSync(HISTORIES).filter((f) => f.endsWith('.json'));

const read = (file: string) => historyFromJSON(JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8')));

const typeOf = (file: string) =>
  read(file).events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;

/** A stored history, named by its file and its workflow: a history carries no workflow id. */
const stored = (file: string): HistoryAndWorkflowId => ({
  workflowId: `${typeOf(file)} (test/fixtures/histories/${file})`,
  history: read(file),
});

/** Replays the stored histories on one replay worker; answers each one's failure, if any. */
async function replayAll(options: ReplayWorkerOptions, which = files()) {
  const failures: string[] = [];
  let replayed = 0;
  for await (const r of Worker.runReplayHistories(options, which.map(stored))) {
    replayed++;
    if (r.error) failures.push(`${r.workflowId}: ${r.error.name}: ${r.error.message}`);
  }
  return { replayed, failures };
}

/** The workflow code before the delivery workflow's `delivery-progress-memo` patch (version 1 of the cluster test). */
const beforeProgressMemo = (): ReplayWorkerOptions => ({
  workflowsPath: require.resolve('../fixtures/workflows-before-progress-memo'),
  plugins: [temporalTracing()],
});

describe('stored histories replay on the workflow code the service runs, tracing exported or not', () => {
  before(async () => {
    await installWorkerRuntime();
  });

  it('has a history for every workflow the worker registers', () => {
    const recorded = new Set(
      files().map((f) => read(f).events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name),
    );
    const registered = Object.entries(workflows)
      .filter(([, w]) => typeof w === 'function')
      .map(([name]) => name);
    assert.deepEqual([...recorded].sort(), registered.sort());
    for (const f of [
      'deliverWebhookWorkflow.before-tracing.json',
      'deliverWebhookWorkflow.before-progress-memo.json',
      'approvalWorkflow.before-tracing.json',
      // The paths that park a run for long, beside each workflow's usual one.
      'deliverWebhookWorkflow.retry-after.json',
      'approvalWorkflow.withdrawn.json',
      'campaignWorkflow.paused.json',
      'appointmentWorkflow.declined.json',
    ])
      assert.ok(files().includes(f), f);
    // The traced runs were started with trace context, so replaying them runs the span code (and its
    // random draws); the ones from before tracing were not.
    for (const f of files()) {
      const header = read(f).events?.[0]?.workflowExecutionStartedEventAttributes?.header?.fields ?? {};
      assert.equal('_tracer-data' in header, !f.includes('.before-tracing'), f);
    }
  });

  it('replays every history with tracing not exported (no span processor)', async () => {
    const { replayed, failures } = await replayAll({ ...workflowCode(), plugins: [temporalTracing()] });
    assert.deepEqual(failures, []);
    assert.equal(replayed, files().length);
  });

  it('replays every history with tracing exported, and exports no span of a replayed run again', async () => {
    const exporter = new InMemorySpanExporter();
    const { replayed, failures } = await replayAll({
      ...workflowCode(),
      plugins: [temporalTracing(new SimpleSpanProcessor(exporter))],
    });
    assert.deepEqual(failures, []);
    assert.equal(replayed, files().length);
    // The plugin's sink is not called in replay: a worker catching up on a run sends no duplicate spans.
    assert.deepEqual(exporter.getFinishedSpans(), []);
  });

  it('fails, naming the workflow and the history, when a change made without a patch meets a run it cannot replay', async () => {
    // The code from before the patch stands for a change that was not guarded: it meets a run recorded
    // after the patch, whose history holds commands that code does not make.
    const delivery = files().filter((f) => typeOf(f) === 'deliverWebhookWorkflow');
    const { failures } = await replayAll(beforeProgressMemo(), delivery);
    assert.deepEqual(
      failures.map((f) => f.split(': ')[0]),
      [
        'deliverWebhookWorkflow (test/fixtures/histories/deliverWebhookWorkflow.json)',
        'deliverWebhookWorkflow (test/fixtures/histories/deliverWebhookWorkflow.retry-after.json)',
      ],
    );
    for (const f of failures) assert.match(f, /DeterminismViolationError: .*Nondeterminism error/);
    // And the runs from before the patch replay on it: the fixture is the code they ran.
    assert.equal(delivery.length, 4);
  });

  it('fails a history whose run called an activity the code no longer calls', async () => {
    // The first attempt's local-activity marker names another activity type, as if the code changed it.
    const json = JSON.parse(readFileSync(path.join(HISTORIES, 'deliverWebhookWorkflow.json'), 'utf8'));
    const marker = json.events.find(
      (e: { eventType: string }) => e.eventType === 'EVENT_TYPE_MARKER_RECORDED',
    );
    const data = marker.markerRecordedEventAttributes.details.data.payloads[0];
    const recorded = Buffer.from(data.data, 'base64').toString();
    assert.match(recorded, /"activity_type":"attemptDelivery"/);
    data.data = Buffer.from(recorded.replace('"attemptDelivery"', '"postWebhook"')).toString('base64');
    await assert.rejects(
      Worker.runReplayHistory(
        { ...workflowCode(), plugins: [temporalTracing()] },
        historyFromJSON(json),
        'deliverWebhookWorkflow.changed',
      ),
      DeterminismViolationError,
    );
  });
});
