export { appointmentWorkflow } from './appointment';
export { approvalWorkflow } from './approval';
export { deliverWebhookWorkflow } from './deliver-webhook';
export { reconcileDeliveriesWorkflow, retentionWorkflow } from './maintenance';
export { pingWorkflow } from './ping';
export { sendMessageWorkflow } from './send-message';
export { campaignWorkflow } from './campaign';
export { agentRunWorkflow } from './agent-run';
export { sourcingWorkflow } from './sourcing';
