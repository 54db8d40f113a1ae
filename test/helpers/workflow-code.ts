import type { Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { WorkerOptions } from '@temporalio/worker';
import { temporalTracing } from '../../infra/tracing';
import { makeCurrent, versionRegistered } from '../../worker/versioning';

/**
 * The workflow code for a test's worker: the bundle `npm test` builds once per run (WORKFLOW_BUNDLE),
 * or, for a file run on its own without it, the sources bundled in-process; with the tracing plugin
 * the service's worker has (its workflow interceptors are in the bundle, and its sink must be too).
 */
export const workflowCode = (): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'plugins'> => ({
  ...(process.env.WORKFLOW_BUNDLE
    ? { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE } }
    : { workflowsPath: require.resolve('../../workflows') }),
  plugins: [temporalTracing()],
});

/** A test worker's version on the dev server: a deployment of its own, named after its task queue. */
export const testVersion = (taskQueue: string): WorkerDeploymentVersion => ({
  deploymentName: taskQueue,
  buildId: 'test',
});

/**
 * A test worker on the dev server runs versioned, as the service's do (the workflows say how their
 * runs move between versions, which a server refuses from an unversioned worker).
 */
export const versioned = (taskQueue: string): Pick<WorkerOptions, 'workerDeploymentOptions'> => ({
  workerDeploymentOptions: {
    version: testVersion(taskQueue),
    useWorkerVersioning: true,
    defaultVersioningBehavior: 'AUTO_UPGRADE',
  },
});

/** Once the worker polls: makes its version current, so the runs started on its task queue reach it. */
export async function servingAsCurrent(client: Client, taskQueue: string): Promise<void> {
  await versionRegistered(client, testVersion(taskQueue), taskQueue);
  await makeCurrent(client, testVersion(taskQueue));
}
