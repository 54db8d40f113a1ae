import { proxyActivities } from '@temporalio/workflow';
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
