import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import {
  DELIVERY_SEARCH_ATTRIBUTES,
  WORKSPACE_ID,
  type DeliverySearchAttribute,
} from '../../domain/kernel/search-attributes';
import { deliveryStarter } from '../../infra/temporal/webhooks';
import { temporalAddress } from '../helpers/webhook-stack';

/**
 * WEBHOOK_SEARCH_ATTRIBUTES as Temporal sees it: each delivery's run carries the chosen attributes with
 * the row's values, and nothing else of ours. No worker polls the queue: the runs only have to exist.
 */
describe('the search attributes a delivery workflow starts with', () => {
  let connection: Connection;
  let client: Client;
  const taskQueue = `delivery-attributes-${process.pid}`;
  const started: string[] = [];

  before(async () => {
    connection = await Connection.connect({ address: temporalAddress() });
    client = new Client({ connection });
  });
  after(async () => {
    await Promise.all(started.map((id) => client.workflow.getHandle(id).terminate('test over')));
    await connection?.close();
  });

  /** Starts a delivery with these attributes; answers what its run carries, by name. */
  async function carried(searchAttributes: readonly DeliverySearchAttribute[]) {
    const d = {
      id: randomUUID(),
      generation: 0,
      attempts: 0,
      event_id: randomUUID(),
      event_type: 'lead.created',
      endpoint_id: randomUUID(),
      workspace_id: randomUUID(),
      endpoint_url: 'https://hooks.example.com/in',
    };
    await deliveryStarter(client, taskQueue, { eager: () => false, searchAttributes })(d);
    const id = `webhook-delivery:${d.id}`;
    started.push(id);
    const description = await client.workflow.getHandle(id).describe();
    const ours = Object.fromEntries(
      description.typedSearchAttributes
        .getAll()
        .filter((p) => DELIVERY_SEARCH_ATTRIBUTES.some((k) => k.name === p.key.name))
        .map((p) => [p.key.name, p.value]),
    );
    return { d, ours, memo: description.memo };
  }

  it('carries all three by default, with the delivery’s values', async () => {
    const { d, ours } = await carried(DELIVERY_SEARCH_ATTRIBUTES);
    assert.deepEqual(ours, {
      WebhookEventType: d.event_type,
      WebhookEndpointId: d.endpoint_id,
      WorkspaceId: d.workspace_id,
    });
  });

  it('carries only those chosen, and none with `none`; the memo still says what it delivers', async () => {
    const one = await carried([WORKSPACE_ID]);
    assert.deepEqual(one.ours, { WorkspaceId: one.d.workspace_id });
    const { d, ours, memo } = await carried([]);
    assert.deepEqual(ours, {});
    assert.equal(memo?.endpoint_id, d.endpoint_id);
  });
});
