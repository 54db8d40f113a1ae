/** Deterministic, readable in the Temporal Web UI, and refused by Temporal if started twice. */
export const deliveryWorkflowId = (deliveryId: string, generation: number) =>
  generation === 0 ? `webhook-delivery:${deliveryId}` : `webhook-delivery:${deliveryId}:r${generation}`;

/** Cancels the workflows of deliveries that must not be attempted again; the database already says so. */
export type WorkflowCanceller = (workflowIds: string[]) => Promise<void>;

export const noCanceller: WorkflowCanceller = async () => undefined;
