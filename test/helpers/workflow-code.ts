import type { WorkerOptions } from '@temporalio/worker';
import { temporalTracing } from '../../infra/tracing';

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
