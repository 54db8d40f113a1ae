import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { AddedWorker } from '../../tooling/cluster-roll';
import { repoRoot } from '../../tooling/paths';
import { startReceiver, type Receiver } from './receiver';

const { EventType } = temporal.api.enums.v1;

/**
 * A receiver that is down (503, asking to be retried after `retryAfterSeconds`) until `recover()`, and
 * keeps what it answered to each event id: a delivery made twice shows there.
 */
export async function outageReceiver(
  retryAfterSeconds: number,
): Promise<{ receiver: Receiver; recover: () => void; answers: Map<string, number[]> }> {
  let down = true;
  const answers = new Map<string, number[]>();
  const receiver = await startReceiver((r) => {
    const status = down ? 503 : 200;
    const id = String(r.headers['service-event-id']);
    answers.set(id, [...(answers.get(id) ?? []), status]);
    return down ? { status, headers: { 'retry-after': String(retryAfterSeconds) } } : { status };
  });
  return { receiver, recover: () => (down = false), answers };
}

/**
 * A POST with an Idempotency-Key, sent again under the same key when the connection fails before an
 * answer (a kept-alive socket the server closed just then): the API answers the repeat with the first
 * outcome, so nothing is made twice.
 */
export async function postOnce(url: string, key: string, body: unknown): Promise<Response> {
  const init = {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${key}`,
      'Content-Type': 'application/json',
      'Idempotency-Key': randomUUID(),
    },
    body: JSON.stringify(body),
  };
  for (let tries = 1; ; tries++) {
    try {
      return await fetch(url, init);
    } catch (err) {
      if (tries === 3) throw err;
    }
  }
}

/** `npm run cluster -- roll` on the cluster of `dataDir`: its output as it comes, and its exit code. */
export function rollCluster(dataDir: string, onLine: (line: string) => void) {
  const env: NodeJS.ProcessEnv = { ...process.env, DEV_DATA_DIR: dataDir };
  delete env.WORKER_BUILD_ID;
  const child = spawn('npm', ['run', '-s', 'cluster', '--', 'roll'], { cwd: repoRoot(), env });
  let out = '';
  const take = (d: Buffer) => {
    const lines = (out + d.toString()).split('\n');
    out = lines.pop()!;
    lines.forEach(onLine);
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  return new Promise<number | null>((resolve) => child.once('exit', resolve));
}

/** `npm run cluster -- add-worker` on the cluster of `dataDir`: the worker it added, once it runs. */
export function addClusterWorkerByCli(dataDir: string): Promise<AddedWorker> {
  const child = spawn('npm', ['run', '-s', 'cluster', '--', 'add-worker'], {
    cwd: repoRoot(),
    env: { ...process.env, DEV_DATA_DIR: dataDir },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => {
      // It prints the worker as one line of JSON, last.
      if (code === 0) resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as AddedWorker);
      else reject(new Error(`npm run cluster -- add-worker exited (${code}):\n${stdout}${stderr}`));
    }),
  );
}

/** What one run's history says about how it ran: which versions completed its tasks, and what failed. */
export async function runRecord(client: Client, workflowId: string) {
  const handle = client.workflow.getHandle(workflowId);
  const events = (await handle.fetchHistory()).events ?? [];
  const described = await handle.describe();
  return {
    status: described.status.name,
    memo: described.memo ?? {},
    result: (await handle.result()) as { outcome: string; attempts: number },
    /** The build id of the worker that completed each workflow task, in order. */
    taskVersions: events
      .filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
      .map((e) => e.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId),
    failedTasks: events
      .filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)
      .map((e) => e.workflowTaskFailedEventAttributes?.failure?.message ?? 'a failed workflow task'),
    patches: events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').length,
  };
}
