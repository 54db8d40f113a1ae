import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { DevStack } from '../infra/stack-file';
import { buildIdOf, makeCurrent, versionName } from '../worker/versioning';
import { bundleWorkflowsOutOfProcess } from '../worker/worker';
import { repoRoot } from './paths';
import type { ServiceProcess } from './service-process';

const { VersionDrainageStatus } = temporal.api.enums.v1;

/** The workers of one version of the worker, as `npm run cluster` runs them. */
export type WorkerSet = { version: WorkerDeploymentVersion; workers: ServiceProcess[] };

export type RollOptions = {
  client: Client;
  from: WorkerSet;
  /** Where this rollout's build goes: `<dir>/dist` and `<dir>/workflows.js`. */
  dir: string;
  /** WORKER_BUILD_ID, when the operator names the new version. */
  buildId?: string;
  /** Starts the workers of a build, waiting to be made current (WORKER_SET_CURRENT=by-rollout). */
  startWorkers: (build: { bundle: string; buildId: string; cwd: string }) => Promise<ServiceProcess[]>;
  say: (line: string) => void;
};

const run = (command: string, args: string[]) =>
  new Promise<void>((resolve, reject) => {
    let out = '';
    const child = spawn(command, args, { cwd: repoRoot(), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} failed (${code}):\n${out}`)),
    );
  });

/**
 * A rollout on one machine, as a rainbow deployment makes it: builds the checkout, starts the new
 * version's workers beside the running ones, makes the new version current once they poll (new runs
 * start there, auto-upgrade runs move at their next task), waits until the older version is drained
 * (its pinned runs have ended), then stops its workers, which finish the tasks they hold.
 */
export async function rollWorkers(o: RollOptions): Promise<WorkerSet> {
  o.say(`building the checkout into ${path.relative(repoRoot(), o.dir)}`);
  await run('npm', ['run', '-s', 'build', '--', '--outDir', path.join(o.dir, 'dist')]);
  const bundle = await bundleWorkflowsOutOfProcess(path.join(o.dir, 'workflows.js'));
  const version = { deploymentName: o.from.version.deploymentName, buildId: buildIdOf(bundle, o.buildId) };
  if (version.buildId === o.from.version.buildId)
    throw new Error(
      `the checkout's workflow code is what ${versionName(version)} runs: nothing to roll (WORKER_BUILD_ID names another version)`,
    );
  o.say(`starting the workers of ${versionName(version)}`);
  const workers = await o.startWorkers({ bundle, buildId: version.buildId, cwd: o.dir });
  try {
    await Promise.all(workers.map((w) => w.ready));
    await makeCurrent(o.client, version);
  } catch (err) {
    await Promise.all(workers.map((w) => w.stop()));
    throw err;
  }
  o.say(`${versionName(version)} is current; ${versionName(o.from.version)} drains`);
  await drained(o.client, o.from.version, o.say);
  await Promise.all(o.from.workers.map((w) => w.stop()));
  o.say(`stopped the workers of ${versionName(o.from.version)}`);
  return { version, workers };
}

/**
 * Until the server counts `version` drained: no longer current, and none of its pinned runs open (it
 * checks visibility, after a grace period for visibility's lag: tooling/temporal-cluster.ts).
 */
async function drained(client: Client, version: WorkerDeploymentVersion, say: (line: string) => void) {
  const { namespace } = client.options;
  let said = '';
  for (;;) {
    const { workerDeploymentVersionInfo: info } =
      await client.workflowService.describeWorkerDeploymentVersion({ namespace, deploymentVersion: version });
    if (info?.drainageInfo?.status === VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINED) return;
    // What is left, for the one watching; the server's own count decides.
    const open = await client.workflowService
      .countWorkflowExecutions({
        namespace,
        query: `TemporalWorkerDeploymentVersion = "${versionName(version)}" AND TemporalWorkflowVersioningBehavior = "Pinned" AND ExecutionStatus = "Running"`,
      })
      .then(({ count }) => `${String(count)} pinned runs open`)
      .catch(() => 'waiting for the server to count it drained');
    const now = `${versionName(version)} drains: ${open}`;
    if (now !== said) say((said = now));
    await pause(2_000);
  }
}

export type ClusterControl = { url: string; token: string; close: () => Promise<void> };

/** A worker process the cluster added to those it runs (`npm run cluster -- add-worker`). */
export type AddedWorker = { pid: number; metricsUrl: string; version: string };

/**
 * The running cluster's door for `npm run cluster -- roll` and `-- add-worker`, on loopback with a
 * token kept in the stack file (readable by its owner only): the cluster process owns every worker it
 * runs, so the rollout happens there, and its lines are streamed back; a worker added there runs the
 * version its workers run, with their settings, and stops with them. One change at a time.
 */
export async function serveClusterControl(doors: {
  roll: (buildId: string | undefined, say: (line: string) => void) => Promise<string>;
  addWorker: () => Promise<AddedWorker>;
}): Promise<ClusterControl> {
  const token = randomBytes(24).toString('base64url');
  let busy = false;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const route = req.method === 'POST' ? req.url : undefined;
      if (route !== '/roll' && route !== '/workers') return void res.writeHead(404).end();
      if (req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401).end();
      if (busy) return void res.writeHead(409).end('a rollout or another worker is under way\n');
      busy = true;
      if (route === '/workers') {
        doors
          .addWorker()
          .then(
            (added) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(added)),
            (err: unknown) => res.writeHead(500).end(err instanceof Error ? err.message : String(err)),
          )
          .finally(() => (busy = false));
        return;
      }
      const { buildId } = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { buildId?: string };
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      doors
        .roll(buildId, (line) => res.write(`${line}\n`))
        .then(
          (version) => res.end(`rolled to ${version}\n`),
          (err: unknown) => res.end(`failed: ${err instanceof Error ? err.message : String(err)}\n`),
        )
        .finally(() => (busy = false));
    });
  });
  // A rollout takes minutes: no request timeout.
  server.requestTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * `npm run cluster -- add-worker`: asks the cluster running on this data folder for one more worker
 * process of the version it runs; resolves once that worker polls and its relay has joined the others
 * (it takes its share of the slots at its next balance, within a second or two).
 */
export async function addClusterWorker(stack: DevStack | undefined): Promise<AddedWorker> {
  const control = stack?.engine === 'cluster' ? stack.control : undefined;
  if (!control)
    throw new Error('No `npm run cluster` runs on this data folder (DEV_DATA_DIR): start it first.');
  const res = await fetch(`${control.url}/workers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${control.token}` },
  });
  if (!res.ok) throw new Error(`the cluster did not add a worker (${res.status}): ${await res.text()}`);
  return (await res.json()) as AddedWorker;
}

/** `npm run cluster -- roll`: asks the cluster running on this data folder to roll; 0 once it has. */
export async function requestRoll(stack: DevStack | undefined, buildId: string | undefined): Promise<number> {
  if (stack?.engine !== 'cluster' || !stack.control) {
    console.error('No `npm run cluster` runs on this data folder (DEV_DATA_DIR): start it, then roll.');
    return 1;
  }
  const res = await fetch(`${stack.control.url}/roll`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.control.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ buildId }),
  });
  let text = '';
  for await (const chunk of res.body ?? []) {
    const part = Buffer.from(chunk as Uint8Array).toString();
    process.stdout.write(part);
    text += part;
  }
  return res.ok && /^rolled to /m.test(text) ? 0 : 1;
}
