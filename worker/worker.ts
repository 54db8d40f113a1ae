import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Activities } from '../activities';
import { WORKFLOW_CACHE_SIZE, WORKFLOW_TASK_SLOTS } from '../infra/config';
import type { Logger } from '../infra/logger';
import { temporalTracing } from '../infra/tracing';
import { installWorkerRuntime } from './runtime';

export type WorkerOptions = {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: Partial<Activities>;
  /** Attempts (local activities) run at once; at most WORKFLOW_TASK_SLOTS. */
  attemptSlots: number;
  /** A prebuilt workflow bundle (see bundle-workflows.ts); without it the worker bundles in-process. */
  workflowBundlePath?: string;
  /**
   * Its version of a Worker Deployment. Always versioned: the workflows say how their runs move between
   * versions, and a server refuses that from an unversioned worker.
   */
  deploymentVersion: WorkerDeploymentVersion;
};

/** The worker's connection; the SDK's runtime is set up first, since it starts with the first connection. */
export async function connectWorker(address: string, log?: Logger): Promise<NativeConnection> {
  await installWorkerRuntime(log);
  return NativeConnection.connect({ address });
}

/** The worker that runs every workflow and activity of the service. */
export async function createWorker({
  connection,
  namespace,
  taskQueue,
  activities,
  workflowBundlePath,
  attemptSlots,
  deploymentVersion,
}: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    // Each workflow type says whether its runs stay on the version they started on (workflows/, and
    // docs/temporal.md "Deploys"); a type that says nothing moves with the current version, so no run is
    // left on a version whose workers have gone.
    workerDeploymentOptions: {
      version: deploymentVersion,
      useWorkerVersioning: true,
      defaultVersioningBehavior: 'AUTO_UPGRADE',
    },
    ...(workflowBundlePath
      ? { workflowBundle: { codePath: workflowBundlePath } }
      : { workflowsPath: require.resolve('../workflows') }),
    activities,
    // Tracing's interceptors and its workflow span sink; bundled in-process, the plugin adds its workflow
    // interceptors itself, and a prebuilt bundle carries them (bundle-workflows.ts).
    plugins: [temporalTracing()],
    // Parked workflows (retry sleeps, approvals) need no cache, but the relay starts dozens at once with
    // local activities in flight: a cache smaller than that evicts them mid-attempt (25 was measured worse).
    maxCachedWorkflows: WORKFLOW_CACHE_SIZE,
    // Each attempt in flight holds its workflow's task open; fewer attempt slots than task slots leaves
    // room for the pollers and for eager starts. With the per-endpoint cap (activities/deliver.ts) one
    // slow receiver holds only a few of these.
    maxConcurrentLocalActivityExecutions: Math.min(attemptSlots, WORKFLOW_TASK_SLOTS),
    // A workflow task stays open while its attempt (a local activity) runs, and an eager start is only
    // granted when a task slot is free: the SDK's default of 40 sent 2 of 3 of the relay's starts to the
    // task queue. Fewer slots than cached workflows, so a task arriving with the cache full evicts an idle
    // workflow, never one mid-attempt (that cancels the attempt: docs/decisions.md, "Workflow task slots").
    maxConcurrentWorkflowTaskExecutions: WORKFLOW_TASK_SLOTS,
  });
}

/**
 * Builds the workflow bundle in a child process (same runtime flags, so tsx works too) and returns its
 * path; of the service's workflows, or of the module `workflowsPath` names.
 */
export async function bundleWorkflowsOutOfProcess(
  outFile = path.join(os.tmpdir(), `lead-service-workflows-${process.pid}.js`),
  workflowsPath?: string,
): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...process.execArgv,
        require.resolve('./bundle-workflows'),
        outFile,
        ...(workflowsPath ? [workflowsPath] : []),
      ],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`workflow bundling failed (exit ${code})`)),
    );
  });
  return outFile;
}
