import { proxyActivities, setWorkflowOptions } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { scoreSourcingBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});

/** Batches one run scores before it ends; a list of 500,000 candidates fits. */
const MAX_BATCHES = 1_000;

/**
 * One sourcing run, `sourcing:<id>`: batch after batch (each one transaction: scores, drops and the
 * run's counts together, so a retried batch never scores twice) until the list has no unscored
 * candidate or the run reached its limit.
 */
export async function sourcingWorkflow(input: {
  runId: string;
}): Promise<{ scored: number; dropped: number }> {
  let scored = 0;
  let dropped = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const b = await scoreSourcingBatch(input.runId);
    scored += b.scored;
    dropped += b.dropped;
    if (b.done) break;
  }
  return { scored, dropped };
}

// Pinned: a run is minutes of batches, so it ends on the code it began on, and a change to it needs no patch.
setWorkflowOptions({ versioningBehavior: 'PINNED' }, sourcingWorkflow);
