import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FAILURES_BEFORE_DISABLE } from '../../domain/webhooks/delivery-rules';
import { createEndpoint } from '../../domain/webhooks/operations/endpoint-create';
import { recordAttempt } from '../../domain/webhooks/record-attempt';
import { noCanceller } from '../../tooling/services';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { leadCreatedDelivery } from '../helpers/deliveries';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { testServices } from '../../tooling/services';

/**
 * Attempts that give up at once on an endpoint about to reach its 20th failure in a row: one of them
 * disables the endpoint and cancels the others' deliveries while they wait for the endpoint's lock.
 * Locking the endpoint before the delivery, as every endpoint change does, leaves no deadlock.
 */
describe('deliveries giving up together on one endpoint', () => {
  let t: TestDatabase;
  let workspaceId: string;
  before(async () => {
    t = await freshDatabase();
    workspaceId = (await workspaceWithKey(t.db)).workspace.id;
  });
  after(() => t.drop());

  const endpointWithWaitingDeliveries = async (count: number) => {
    const webhooks = {
      secretsKey: Buffer.alloc(32, 9),
      allowPrivateTargets: true,
      cancelWorkflows: noCanceller,
    };
    const endpoint = await asOperator(
      testServices(t.db, { webhooks }),
      createEndpoint,
      { url: 'https://127.0.0.1/hook', events: ['lead.created'] },
      { workspaceId },
    );
    await t.db.query(`UPDATE webhook_endpoints SET consecutive_failures = $2 WHERE id = $1`, [
      endpoint.id,
      FAILURES_BEFORE_DISABLE - 1,
    ]);
    const deliveries: string[] = [];
    for (let i = 0; i < count; i++) {
      deliveries.push(await leadCreatedDelivery(t.db, workspaceId, endpoint.id));
    }
    return { endpointId: endpoint.id, deliveries };
  };

  it('record every attempt or find its delivery cancelled, disable the endpoint once, and never deadlock', async () => {
    for (let round = 0; round < 5; round++) {
      const { endpointId, deliveries } = await endpointWithWaitingDeliveries(8);
      const results = await Promise.all(
        deliveries.map((deliveryId) =>
          recordAttempt(t.db, {
            deliveryId,
            endpointId,
            generation: 0,
            attempt: 1,
            startedAt: new Date(),
            durationMs: 1,
            responseStatus: 500,
            errorClass: 'http_500',
            outcome: 'exhausted',
            nextAttemptAt: null,
            sendingToken: null,
          }),
        ),
      );
      const [endpoint] = await t.db.query<{ status: string }[]>(
        `SELECT status FROM webhook_endpoints WHERE id = $1`,
        [endpointId],
      );
      assert.equal(endpoint?.status, 'DISABLED');
      const statuses = await t.db.query<{ status: string }[]>(
        `SELECT status FROM webhook_deliveries WHERE id = ANY($1)`,
        [deliveries],
      );
      assert.ok(statuses.every((d) => d.status === 'EXHAUSTED' || d.status === 'CANCELLED'));
      assert.equal(
        results.filter((r) => r.recorded).length,
        statuses.filter((d) => d.status === 'EXHAUSTED').length,
      );
      const [notices] = await t.db.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM notifications WHERE data->>'endpoint_id' = $1`,
        [endpointId],
      );
      assert.equal(notices?.n, 1);
    }
  });
});
