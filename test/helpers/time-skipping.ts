import { TestWorkflowEnvironment } from '@temporalio/testing';
import { installWorkerRuntime } from '../../worker/runtime';

/** Temporal's time-skipping test server, from the binary `npm test` installs: sleeps of days take milliseconds. */
export async function timeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  await installWorkerRuntime();
  const path = process.env.TEMPORAL_TEST_SERVER_PATH;
  if (!path) throw new Error('TEMPORAL_TEST_SERVER_PATH is not set: run the tests with `npm test`');
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path } },
  });
}
