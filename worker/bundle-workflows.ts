import { writeFileSync } from 'node:fs';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_TRACING_MODULE } from '../infra/tracing';

/**
 * Bundles the workflow code into one file. Run as a child process by the worker: webpack's memory
 * (about 70 MiB that V8 never gives back) then leaves with the child instead of staying in the worker.
 * `workflowsPath` is another module exporting the workflows (a test's older version of them).
 */
async function writeWorkflowBundle(outFile: string, workflowsPath = require.resolve('../workflows')) {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    // The tracing workflow interceptors, always: what a run does never depends on whether a worker exports.
    workflowInterceptorModules: [WORKFLOW_TRACING_MODULE],
    logger: {
      log: () => undefined,
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: console.warn,
      error: console.error,
    },
  });
  writeFileSync(outFile, code);
}

if (require.main === module) {
  writeWorkflowBundle(process.argv[2]!, process.argv[3]).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
