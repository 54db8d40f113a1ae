import type { Client } from '@temporalio/client';
import { outboxes as agents } from '../../domain/agents';
import { outboxes as campaigns } from '../../domain/campaigns';
import { outboxes as conversations } from '../../domain/conversations';
import { outboxes as identity } from '../../domain/identity';
import type { OutboxDeclaration } from '../../domain/kernel/outbox';
import { outboxes as prospects } from '../../domain/prospects';
import { outboxes as sales } from '../../domain/sales';
import { outboxes as webhooks } from '../../domain/webhooks';
import type { AgentScheduler } from './agents';
import { campaignStarter } from './campaigns';
import { messageStarter } from './conversations';
import { memberMailStarter } from './member-mail';
import { sourcingStarter } from './prospects';
import { invoiceTimerStarter, quoteTimerStarter } from './sales';
import { deliveryStarter, type DeliveryStarts } from './webhooks';

/** How one outbox's row gets its durable job, by the outbox's name (what its NOTIFY names). */
export type OutboxStarter = { outbox: string; start: (row: unknown) => Promise<void> };

/** The starter of an outbox's rows, typed by its declaration (the row its `unstarted` reads). */
const starting = <Row>(outbox: OutboxDeclaration<Row>, start: (row: NoInfer<Row>) => Promise<void>) => ({
  outbox: outbox.name,
  start: start as (row: unknown) => Promise<void>,
});

/**
 * One starter per outbox the areas declare: each starts a row's workflow (or brings an agent's schedule
 * in step) under its deterministic id. The relay (worker/relay.ts) pairs them with the registered
 * outboxes by name, and refuses to start when one lacks the other. `deliveries` says whether a delivery's
 * start may run its first task on the relay's own worker, and what it carries (deliveryStarter).
 */
export function outboxStarters(
  client: Client,
  taskQueue: string,
  scheduler: AgentScheduler,
  deliveries: DeliveryStarts,
): OutboxStarter[] {
  return [
    starting(webhooks.deliveries, deliveryStarter(client, taskQueue, deliveries)),
    starting(conversations.messages, messageStarter(client, taskQueue)),
    starting(campaigns.campaigns, campaignStarter(client, taskQueue)),
    starting(prospects.sourcingRuns, sourcingStarter(client, taskQueue)),
    starting(sales.quoteExpiry, quoteTimerStarter(client, taskQueue)),
    starting(sales.invoiceDue, invoiceTimerStarter(client, taskQueue)),
    starting(agents.schedules, (a) => scheduler.sync(a, a.timezone)),
    starting(identity.memberMail, memberMailStarter(client, taskQueue)),
  ];
}
