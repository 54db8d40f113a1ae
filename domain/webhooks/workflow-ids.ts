import type { WorkflowCanceller } from '../kernel/operation';

/** Deterministic, readable in the Temporal Web UI, and refused by Temporal if started twice. */
export const deliveryWorkflowId = (deliveryId: string, generation: number) =>
  generation === 0 ? `webhook-delivery:${deliveryId}` : `webhook-delivery:${deliveryId}:r${generation}`;

/** For callers with nothing to cancel (tests, benchmarks that check the database only). */
export const noCanceller: WorkflowCanceller = async () => undefined;
