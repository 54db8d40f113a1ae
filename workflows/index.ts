export { approvalWorkflow } from './approval';
export { deliverWebhookWorkflow } from './deliver-webhook';
export { pingWorkflow } from './ping';
