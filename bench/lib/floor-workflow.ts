import { proxyLocalActivities } from '@temporalio/workflow';

/** The floor's one activity: it only says that it ran (bench/lib/temporal-floor.ts). */
export type FloorActivities = { arrived(): Promise<void> };

const { arrived } = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '10 seconds' });

/**
 * A delivery's workflow with nothing of ours in it: one local activity that does nothing, then done.
 * Started eagerly as the relay starts deliveries, it is what Temporal alone costs per delivery here.
 */
export async function temporalFloorWorkflow(): Promise<void> {
  await arrived();
}
