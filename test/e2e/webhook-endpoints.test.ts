import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import { createLead } from '../../domain/leads/operations/create';
import { listDeliveries } from '../../domain/webhooks/operations/delivery-list';
import { recoverEndpoint } from '../../domain/webhooks/operations/endpoint-recover';
import { deleteEndpoint } from '../../domain/webhooks/operations/endpoint-delete';
import { disableEndpoint } from '../../domain/webhooks/operations/endpoint-disable';
import { enableEndpoint } from '../../domain/webhooks/operations/endpoint-enable';
import { listEndpoints } from '../../domain/webhooks/operations/endpoint-list';
import { rotateEndpointSecret } from '../../domain/webhooks/operations/endpoint-rotate-secret';
import { setEndpointEvents } from '../../domain/webhooks/operations/endpoint-set-events';
import { waitFor } from '../../tooling/processes';
import { intakeBody } from '../helpers/leads';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

describe('managing webhook endpoints: disable, delete, drop a type, enable, rotate, recover', () => {
  let s: WebhookStack;
  let healthy = false;
  let rx: Receiver;
  before(async () => {
    s = await startWebhookStack();
    rx = await startReceiver(() => ({ status: healthy ? 204 : 503 }));
  });
  after(async () => {
    await rx.close();
    await s.stop();
  });

  /** An endpoint with one delivery waiting in the ladder (the receiver answers 503). */
  const waitingDelivery = async (events = ['lead.created', 'lead.scored']) => {
    healthy = false;
    const endpoint = await s.endpoint(rx, events);
    await s.run(
      createLead,
      { ...intakeBody(), idempotency_key: randomUUID() },
      { workspaceId: s.workspace.id },
    );
    const waiting = await waitFor(
      'deliveries waiting in the ladder',
      async () => {
        const rows = await s.deliveries(`endpoint_id = $1`, [endpoint.id]);
        return rows.length === events.length && rows.every((d) => d.status === 'FAILED') ? rows : undefined;
      },
      20_000,
      50,
    );
    return { endpoint, waiting };
  };
  const workflowStatus = async (deliveryId: string) =>
    (await s.client.workflow.getHandle(`webhook-delivery:${deliveryId}`).describe()).status.name;

  it('disabling by hand cancels waiting deliveries and their workflows; enabling resets the failure count', async () => {
    const { endpoint, waiting } = await waitingDelivery();
    await s.db.query('UPDATE webhook_endpoints SET consecutive_failures = 7 WHERE id = $1', [endpoint.id]);
    const disabled = await s.run(disableEndpoint, { id: endpoint.id, reason: 'maintenance' });
    assert.equal(disabled.status, 'DISABLED');
    assert.equal(disabled.cancelled_deliveries, 2);
    for (const d of waiting) {
      assert.equal((await s.deliveries('id = $1', [d.id]))[0]!.status, 'CANCELLED');
      await waitFor(
        'workflow cancelled',
        async () => (await workflowStatus(d.id)) === 'CANCELLED',
        10_000,
        100,
      );
    }
    const enabled = await s.run(enableEndpoint, { id: endpoint.id });
    assert.equal(enabled.status, 'ACTIVE');
    assert.equal(enabled.consecutive_failures, 0);
    assert.equal(enabled.disabled_reason, null);
    assert.ok(
      !JSON.stringify(await s.run(listEndpoints, {}, { workspaceId: s.workspace.id })).includes('whsec_'),
      'never the secret',
    );
  });

  it("dropping an event type cancels only that type's waiting deliveries", async () => {
    const { endpoint, waiting } = await waitingDelivery();
    const updated = await s.run(setEndpointEvents, { id: endpoint.id, events: ['lead.created'] });
    assert.equal(updated.cancelled_deliveries, 1);
    const byType = Object.fromEntries(
      (await s.deliveries('endpoint_id = $1', [endpoint.id])).map((d) => [d.event_type, d.status]),
    );
    assert.deepEqual(byType, { 'lead.created': 'FAILED', 'lead.scored': 'CANCELLED' });
    const scored = waiting.find((d) => d.event_type === 'lead.scored')!;
    await waitFor(
      'workflow cancelled',
      async () => (await workflowStatus(scored.id)) === 'CANCELLED',
      10_000,
      100,
    );
    await s.run(deleteEndpoint, { id: endpoint.id });
    assert.equal(
      (await s.deliveries(`endpoint_id = $1 AND event_type = 'lead.created'`, [endpoint.id]))[0]!.status,
      'CANCELLED',
      'deleting cancels too',
    );
    assert.equal(
      (await s.run(listEndpoints, {}, { workspaceId: s.workspace.id })).some((e) => e.id === endpoint.id),
      false,
    );
  });

  it('recovers cancelled deliveries once the receiver is fixed, as new attempts of the same event', async () => {
    const { endpoint, waiting } = await waitingDelivery(['lead.created']);
    const since = new Date(Date.now() - 60_000).toISOString();
    await s.run(disableEndpoint, { id: endpoint.id });
    await s.run(enableEndpoint, { id: endpoint.id });
    const rotated = await s.run(rotateEndpointSecret, { id: endpoint.id });
    rx.setSecret(rotated.secret);
    healthy = true;
    const recovered = await s.run(recoverEndpoint, { id: endpoint.id, since });
    assert.equal(recovered.requeued, 1);
    const d = await s.waitForDelivery('id = $1', [waiting[0]!.id], (x) => x.status === 'SUCCEEDED', 20_000);
    assert.equal(d.attempts, 2);
    const last = rx.received.filter((r) => r.headers['service-event-id'] === d.event_id).at(-1)!;
    assert.equal(last.headers['service-delivery-attempt'], '2');
    assert.ok(last.helperOk, 'signed with the rotated secret at once');
    const listed = await s.run(listDeliveries, {}, { workspaceId: s.workspace.id });
    const entry = listed.data.find((x) => x.id === d.id) as unknown as {
      attempt_log: { number: number; response_status: number }[];
    };
    assert.deepEqual(
      entry.attempt_log.map((a) => [a.number, a.response_status]),
      [
        [1, 503],
        [2, 204],
      ],
    );
  });
});
