import { proxyActivities, setWorkflowOptions } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { recordPing } = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds' });

/** Health check used by the worker smoke test: one activity round trip. */
export async function pingWorkflow(message: string): Promise<string> {
  const seenAt = await recordPing(message);
  return `pong: ${message} (${seenAt})`;
}

// Pinned: one activity round trip.
setWorkflowOptions({ versioningBehavior: 'PINNED' }, pingWorkflow);
