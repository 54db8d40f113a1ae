export { deliverWebhookWorkflow } from './deliver-webhook';
export { pingWorkflow } from './ping';
