import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDeliveryActivities } from '../../activities/deliver';
import { httpPost } from '../../activities/http-post';
import { emitEvent } from '../../domain/kernel/events';
import { createEndpoint } from '../../domain/webhooks/operations/endpoints';
import { noCanceller } from '../../domain/webhooks/workflow-ids';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { startReceiver, type Receiver } from '../helpers/receiver';

/** The attempt activity on its own, against PostgreSQL and a loopback receiver. */
describe('the attempt activity', () => {
  let t: TestDatabase;
  let rx: Receiver;
  let status = 503;
  const secretsKey = Buffer.alloc(32, 9);
  let activities: ReturnType<typeof createDeliveryActivities>;
  let workspaceId: string;
  let endpointId: string;
  before(async () => {
    t = await freshDatabase();
    rx = await startReceiver(() => ({ status }));
    workspaceId = (await workspaceWithKey(t.db)).workspace.id;
    const deps = { secretsKey, allowPrivateTargets: true, cancelWorkflows: noCanceller };
    const e = await asOperator(
      { db: t.db, webhooks: deps },
      createEndpoint,
      { url: rx.url, events: ['lead.created'] },
      { workspaceId },
    );
    rx.setSecret(e.secret);
    endpointId = e.id;
    activities = createDeliveryActivities({ db: t.db, http: httpPost, clock: () => new Date(), ...deps });
  });
  after(async () => {
    await rx.close();
    await t.drop();
  });

  const newDelivery = async () => {
    const eventId = await t.db.transaction((m) =>
      emitEvent(
        m,
        workspaceId,
        'lead.created',
        { type: 'lead', id: '00000000-0000-4000-8000-000000000001' },
        {
          lead_id: '00000000-0000-4000-8000-000000000001',
          status: 'NEW',
          source_type: 'test',
          source: 'test',
        },
      ),
    );
    const [d] = await t.db.query<{ id: string }[]>(
      'SELECT id FROM webhook_deliveries WHERE event_id = $1 AND endpoint_id = $2',
      [eventId, endpointId],
    );
    return d!.id;
  };

  it('does not send an attempt again when a crashed worker re-runs it: it answers what was recorded', async () => {
    const deliveryId = await newDelivery();
    status = 503;
    const input = { deliveryId, generation: 0, attempt: 1, nextDelayMs: 30_000 };
    assert.deepEqual(await activities.attemptDelivery(input), {
      outcome: 'retry',
      status: 503,
      errorClass: undefined,
    });
    assert.equal(rx.received.length, 1);
    status = 204;
    assert.deepEqual(
      await activities.attemptDelivery(input),
      { outcome: 'retry' },
      'the recorded answer, not a new one',
    );
    assert.equal(rx.received.length, 1, 'nothing sent the second time');
    assert.equal(
      (await activities.attemptDelivery({ ...input, attempt: 2, nextDelayMs: 300_000 })).outcome,
      'succeeded',
    );
    assert.equal(rx.received.length, 2);
    assert.equal(rx.received[1]!.headers['service-delivery-attempt'], '2');
    const [d] = await t.db.query<{ status: string; attempts: number; next_attempt_at: Date | null }[]>(
      'SELECT status, attempts, next_attempt_at FROM webhook_deliveries WHERE id = $1',
      [deliveryId],
    );
    assert.deepEqual(d, { status: 'SUCCEEDED', attempts: 2, next_attempt_at: null });
  });

  it('sends nothing for a delivery cancelled meanwhile, or for a stale generation', async () => {
    const deliveryId = await newDelivery();
    await t.db.query(`UPDATE webhook_deliveries SET status = 'CANCELLED' WHERE id = $1`, [deliveryId]);
    const before = rx.received.length;
    assert.deepEqual(
      await activities.attemptDelivery({ deliveryId, generation: 0, attempt: 1, nextDelayMs: 1 }),
      { outcome: 'cancelled' },
    );
    const other = await newDelivery();
    assert.deepEqual(
      await activities.attemptDelivery({ deliveryId: other, generation: 1, attempt: 1, nextDelayMs: 1 }),
      { outcome: 'cancelled' },
    );
    assert.equal(rx.received.length, before);
  });
});
