import type { Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Ports } from '../../domain/kernel/operation';
import type { DeliverySearchAttribute } from '../../domain/kernel/search-attributes';
import type { StartDelivery } from '../../domain/webhooks';
import { deliverWebhookWorkflow } from '../../workflows/deliver-webhook';
import { workflowCanceller } from '../temporal-client';
import { startOnce } from './start-once';
import { deliveryWorkflowId } from './workflow-ids';

/** The endpoint's host (and port), never its path or query, which may carry an integrator's token. */
function endpointHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an endpoint with an unreadable URL';
  }
}

/** How deliveries' workflows start: whether a first start may be eager, and the search attributes they carry. */
export type DeliveryStarts = {
  eager: () => boolean;
  /** WEBHOOK_SEARCH_ATTRIBUTES: none leaves the start without any. */
  searchAttributes: readonly DeliverySearchAttribute[];
};

/**
 * Starts a delivery's workflow under its deterministic id, with a memo and the search attributes the
 * operator chose, which say in the Web UI what it delivers. A first start refuses a duplicate (the relay
 * may offer the same delivery twice); a restart is allowed only over a run that has closed. A first start
 * asks to run on the starting worker when `eager()` allows it (the relay's worker is the current version:
 * worker/versioning.ts).
 */
export const deliveryStarter =
  (client: Client, taskQueue: string, { eager, searchAttributes }: DeliveryStarts): StartDelivery =>
  async (d, restart) => {
    const valueOf: Record<DeliverySearchAttribute['name'], string> = {
      WebhookEventType: d.event_type,
      WebhookEndpointId: d.endpoint_id,
      WorkspaceId: d.workspace_id,
    };
    const typedSearchAttributes = searchAttributes.map((key) => ({ key, value: valueOf[key.name] }));
    await startOnce(client, deliverWebhookWorkflow, {
      taskQueue,
      workflowId: deliveryWorkflowId(d.id, d.generation),
      args: [
        {
          deliveryId: d.id,
          generation: d.generation,
          firstAttempt: d.attempts + 1,
          ...(restart && { rung: restart.rung }),
        },
      ],
      workflowIdReusePolicy: restart
        ? WorkflowIdReusePolicy.ALLOW_DUPLICATE
        : WorkflowIdReusePolicy.REJECT_DUPLICATE,
      // Eager start runs the first attempt on this very worker, one round trip less (perf-notes).
      requestEagerStart: !restart && eager(),
      staticSummary: `${d.event_type} to ${endpointHost(d.endpoint_url)}${restart ? ` (restarted at attempt ${d.attempts + 1})` : ''}`,
      memo: {
        delivery_id: d.id,
        event_id: d.event_id,
        event_type: d.event_type,
        endpoint_id: d.endpoint_id,
        workspace_id: d.workspace_id,
        generation: d.generation,
        ...(restart && { restarted_at_rung: restart.rung }),
      },
      // One workspace's burst waits behind its own tasks, not everyone's: Temporal's task-queue
      // fairness serves the keys in turn (matching.enableFairness; docs/temporal.md).
      priority: { fairnessKey: d.workspace_id },
      ...(typedSearchAttributes.length > 0 && { typedSearchAttributes }),
    });
  };

/**
 * Cancels deliveries' runs after the commit that cancelled their rows; a run that already ended or
 * never started needs nothing. With none to cancel, Temporal is not dialled.
 */
export const deliveryCanceller =
  (temporal: () => Promise<Client>): Ports['webhooks']['cancelWorkflows'] =>
  async (deliveries) => {
    if (deliveries.length === 0) return;
    await workflowCanceller(await temporal())(deliveries.map((d) => deliveryWorkflowId(d.id, d.generation)));
  };
