import { proxyActivities, setWorkflowOptions } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { reconcileDeliveries, purgeExpired } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '10 seconds', maximumAttempts: 3 },
});

/** Run by the `reconcile-deliveries` schedule: restarts or ends deliveries nothing would move again. */
export async function reconcileDeliveriesWorkflow() {
  return reconcileDeliveries();
}

/** Run by the `retention` schedule: deletes idempotency records, audit rows and events past retention. */
export async function retentionWorkflow() {
  return purgeExpired();
}

// Pinned, both: a scheduled run is one activity of seconds to minutes, so it ends on the code it began on.
setWorkflowOptions({ versioningBehavior: 'PINNED' }, reconcileDeliveriesWorkflow);
setWorkflowOptions({ versioningBehavior: 'PINNED' }, retentionWorkflow);
