import type { WorkerOptions } from '@temporalio/worker';

/**
 * The workflow code for a test's worker: the bundle `npm test` builds once per run (WORKFLOW_BUNDLE),
 * or, for a file run on its own without it, the sources bundled in-process.
 */
export const workflowCode = (): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> =>
  process.env.WORKFLOW_BUNDLE
    ? { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE } }
    : { workflowsPath: require.resolve('../../workflows') };
