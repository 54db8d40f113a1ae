import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createEndpoint } from '../../domain/webhooks/operations/endpoint-create';
import { workspaceWithKey } from '../helpers/fixtures';
import { intakeBody, postLead } from '../helpers/leads';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

/**
 * One tenant's receiver that never answers must not hold up another's deliveries: the worker here
 * has four attempt slots and a cap of two attempts in flight per endpoint, so the slow endpoint
 * holds two slots and the other workspace's attempts go out at once. Without the cap the slow
 * endpoint's six deliveries would fill all four slots until their 10-second deadline.
 */
describe('a slow receiver and everyone else', () => {
  let s: WebhookStack;
  let slow: Receiver;
  let fast: Receiver;
  before(async () => {
    s = await startWebhookStack({ env: { WEBHOOK_ENDPOINT_CONCURRENCY: '2', WORKER_ATTEMPT_SLOTS: '4' } });
    slow = await startReceiver(() => 'hang');
    fast = await startReceiver(() => ({ status: 204 }));
    await s.endpoint(slow, ['lead.created']);
  });
  after(async () => {
    await slow.close();
    await fast.close();
    await s.stop();
  });

  it("keeps another workspace's first attempts going while one endpoint holds its requests", async () => {
    for (let i = 0; i < 6; i++) assert.equal((await postLead(s.app, s.key, intakeBody())).status, 201);
    await s.waitForDelivery(`status = 'PENDING'`, [], () => slow.hangingNow() === 2, 20_000);

    const other = await workspaceWithKey(s.db, { scopes: ['leads:write'] });
    const e = await s.run(
      createEndpoint,
      { url: fast.url, events: ['lead.created'] },
      { workspaceId: other.workspace.id },
    );
    fast.setSecret(e.secret);
    for (let i = 0; i < 3; i++)
      assert.equal((await postLead(s.app, other.key.key, intakeBody())).status, 201);

    // Well inside the slow requests' 10-second deadline: they still hold their slots meanwhile.
    const delivered = await s.waitForDelivery(
      `endpoint_id = $1 AND status = 'SUCCEEDED'`,
      [e.id],
      () => fast.received.length === 3,
      8_000,
    );
    assert.equal(delivered.attempts, 1);
    assert.equal(slow.hangingNow(), 2, 'the slow endpoint still holds its two requests');
    assert.equal(slow.received.length, 2, 'and never had more than its cap in flight');
    assert.ok(fast.received.every((r) => r.helperOk && r.headers['service-delivery-attempt'] === '1'));
    const waiting = await s.deliveries(`endpoint_id <> $1 AND status = 'PENDING'`, [e.id]);
    assert.equal(waiting.length, 6, "the slow endpoint's deliveries wait their turn, none lost or ended");
  });
});
