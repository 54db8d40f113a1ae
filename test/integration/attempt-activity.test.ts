import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hostname } from 'node:os';
import { NO_METRICS } from '../../activities/activity-metrics';
import { createDeliveryActivities, type AttemptInput, type AttemptOutcome } from '../../activities/deliver';
import { httpPost } from '../../activities/http-post';
import { createEndpoint } from '../../domain/webhooks/operations/endpoint-create';
import { noCanceller } from '../../tooling/services';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { leadCreatedDelivery } from '../helpers/deliveries';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { startReceiver, type Answer, type Receiver } from '../helpers/receiver';
import { waitFor } from '../../tooling/processes';
import { startDnsServer } from '../helpers/dns-server';
import { MockActivityEnvironment } from '@temporalio/testing';
import { pbkdf2 } from 'node:crypto';
import { promisify } from 'node:util';
import { testServices } from '../../tooling/services';

/** The attempt activity on its own, against PostgreSQL and a loopback receiver. */
describe('the attempt activity', () => {
  let t: TestDatabase;
  let rx: Receiver;
  let status: Answer = { status: 503 };
  const secretsKey = Buffer.alloc(32, 9);
  let activities: ReturnType<typeof createDeliveryActivities>;
  let workspaceId: string;
  let endpointId: string;
  before(async () => {
    t = await freshDatabase();
    rx = await startReceiver(() => status);
    workspaceId = (await workspaceWithKey(t.db)).workspace.id;
    const deps = { secretsKey, allowPrivateTargets: true, cancelWorkflows: noCanceller };
    const e = await asOperator(
      testServices(t.db, { webhooks: deps }),
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

  const newDelivery = () => leadCreatedDelivery(t.db, workspaceId, endpointId);

  it('does not send an attempt again when a crashed worker re-runs it: it answers what was recorded', async () => {
    const deliveryId = await newDelivery();
    status = { status: 503 };
    const input = { deliveryId, generation: 0, attempt: 1, nextDelayMs: 30_000 };
    assert.deepEqual(await activities.attemptDelivery(input), {
      outcome: 'retry',
      status: 503,
      errorClass: undefined,
    });
    assert.equal(rx.received.length, 1);
    status = { status: 204 };
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

  it('ends a delivery at once when its secret no longer decrypts: nothing sent, the reason recorded', async () => {
    const deliveryId = await newDelivery();
    const rotated = createDeliveryActivities({
      db: t.db,
      http: httpPost,
      clock: () => new Date(),
      secretsKey: Buffer.alloc(32, 7), // SECRETS_KEY changed without re-encrypting
      allowPrivateTargets: true,
      cancelWorkflows: noCanceller,
    });
    const before = rx.received.length;
    const out = await rotated.attemptDelivery({ deliveryId, generation: 0, attempt: 1, nextDelayMs: 30_000 });
    assert.equal(out.outcome, 'exhausted', 'not retried: it can never succeed');
    assert.equal(rx.received.length, before);
    const [a] = await t.db.query<{ error_class: string }[]>(
      'SELECT error_class FROM webhook_attempts WHERE delivery_id = $1',
      [deliveryId],
    );
    assert.equal(a!.error_class, 'secret_unreadable');
  });

  describe('one deadline for DNS, connect and answer', () => {
    let dns: Awaited<ReturnType<typeof startDnsServer>>;
    const port = () => new URL(rx.url).port;
    before(async () => {
      dns = await startDnsServer({ 'hooks.test': { a: ['127.0.0.1'] }, 'stalled.test': 'silent' });
    });
    after(() => dns.close());

    const withDeadline = (ms: number) =>
      createDeliveryActivities({
        db: t.db,
        http: httpPost,
        clock: () => new Date(),
        secretsKey,
        allowPrivateTargets: true,
        cancelWorkflows: noCanceller,
        attemptTimeoutMs: ms,
        dnsServers: [dns.server],
      });
    const pointAt = (host: string) =>
      t.db.query('UPDATE webhook_endpoints SET url = $2 WHERE id = $1', [
        endpointId,
        `http://${host}:${port()}/hooks`,
      ]);
    const attemptOf = async (deliveryId: string) =>
      (
        await t.db.query<
          { error_class: string | null; response_status: number | null; duration_ms: number }[]
        >('SELECT error_class, response_status, duration_ms FROM webhook_attempts WHERE delivery_id = $1', [
          deliveryId,
        ])
      )[0]!;
    after(() => t.db.query('UPDATE webhook_endpoints SET url = $2 WHERE id = $1', [endpointId, rx.url]));
    /** Attempt 1 run as Temporal runs it, so the test can cancel it (`env.cancel()`). */
    const underTemporal = (deliveryId: string) => {
      const env = new MockActivityEnvironment();
      const activities = withDeadline(60_000);
      const running = env.run<[AttemptInput], AttemptOutcome, (i: AttemptInput) => Promise<AttemptOutcome>>(
        (i) => activities.attemptDelivery(i),
        { deliveryId, generation: 0, attempt: 1, nextDelayMs: 1 },
      );
      return { env, running };
    };

    it('resolves the host itself (c-ares, not the thread pool) and connects to the address it checked', async () => {
      await pointAt('hooks.test');
      status = { status: 204 };
      const deliveryId = await newDelivery();
      const out = await withDeadline(5_000).attemptDelivery({
        deliveryId,
        generation: 0,
        attempt: 1,
        nextDelayMs: 1,
      });
      assert.equal(out.outcome, 'succeeded');
      assert.equal(rx.received.at(-1)!.headers.host, `hooks.test:${port()}`);
    });

    it('counts a resolver that never answers against the attempt deadline, and keeps the thread pool free', async () => {
      await pointAt('stalled.test');
      const ids = await Promise.all(Array.from({ length: 6 }, () => newDelivery()));
      const activities = withDeadline(1_500);
      let attemptsDone = false;
      const attempts = Promise.all(
        ids.map((deliveryId) =>
          activities.attemptDelivery({ deliveryId, generation: 0, attempt: 1, nextDelayMs: 1 }),
        ),
      ).finally(() => (attemptsDone = true));
      // Six stalled lookups on libuv's four threads would hold this back until they gave up.
      await Promise.all(Array.from({ length: 4 }, () => promisify(pbkdf2)('x', 'y', 1, 32, 'sha256')));
      assert.equal(attemptsDone, false, 'the thread pool answered while every resolution still waited');
      for (const out of await attempts) assert.equal(out.outcome, 'retry');
      for (const id of ids) {
        const a = await attemptOf(id);
        assert.equal(a.error_class, 'timeout');
        assert.ok(a.duration_ms < 3_000, `the attempt ended at its deadline (took ${a.duration_ms} ms)`);
      }
    });

    it('names a host that does not exist as a dns failure', async () => {
      await pointAt('missing.test');
      const deliveryId = await newDelivery();
      await withDeadline(5_000).attemptDelivery({ deliveryId, generation: 0, attempt: 1, nextDelayMs: 1 });
      assert.equal((await attemptOf(deliveryId)).error_class, 'dns');
    });

    it('lets a request that has left run to its answer when Temporal cancels the attempt, and records that answer', async () => {
      await pointAt('127.0.0.1');
      status = 'hang';
      const deliveryId = await newDelivery();
      const { env, running } = underTemporal(deliveryId);
      await waitFor('the receiver to hold the request', async () => rx.hangingNow() === 1, 5_000, 20);
      env.cancel();
      // The receiver may have it: cutting it now would leave its answer unknown (issue 57).
      rx.answerHanging(503);
      assert.deepEqual(await running, { outcome: 'retry', status: 503, errorClass: undefined });
      status = { status: 204 };
      const [a] = await t.db.query<{ error_class: string; response_status: number }[]>(
        'SELECT error_class, response_status FROM webhook_attempts WHERE delivery_id = $1',
        [deliveryId],
      );
      assert.deepEqual(a, { error_class: 'http_503', response_status: 503 }, "the receiver's answer");
    });

    it('sends nothing from a re-run of an attempt whose first run is still sending; the re-run then answers from its record (issue 57)', async () => {
      await pointAt('127.0.0.1');
      status = 'hang';
      const deliveryId = await newDelivery();
      const reruns: string[] = [];
      const counting = createDeliveryActivities({
        db: t.db,
        http: httpPost,
        clock: () => new Date(),
        secretsKey,
        allowPrivateTargets: true,
        cancelWorkflows: noCanceller,
        metrics: { ...NO_METRICS, attemptRerun: (found) => reruns.push(found) },
      });
      const input = { deliveryId, generation: 0, attempt: 1, nextDelayMs: 30_000 };
      const [{ event_id: eventId }] = await t.db.query<[{ event_id: string }]>(
        'SELECT event_id FROM webhook_deliveries WHERE id = $1',
        [deliveryId],
      );
      const sent = () => rx.received.filter((r) => r.headers['service-event-id'] === eventId).length;
      // The first run's request is with a slow receiver when Temporal cancels the attempt: its workflow
      // task was lost (timed out while the engine was slow), and the workflow, replayed, runs it again.
      const first = underTemporal(deliveryId);
      await waitFor('the receiver to hold the request', async () => rx.hangingNow() === 1, 5_000, 20);
      first.env.cancel();
      assert.deepEqual(await counting.attemptDelivery(input), { outcome: 'busy' }, 'the re-run waits');
      assert.equal(sent(), 1, 'the re-run sent nothing');
      assert.deepEqual(reruns, ['in_flight']);
      const [holding] = await t.db.query<{ sending_attempt: number; sending_by: string }[]>(
        'SELECT sending_attempt, sending_by FROM webhook_deliveries WHERE id = $1',
        [deliveryId],
      );
      assert.deepEqual(holding, { sending_attempt: 1, sending_by: `${process.pid}@${hostname()}` });

      rx.answerHanging(204);
      assert.equal((await first.running).outcome, 'succeeded', 'the first run recorded the answer');
      status = { status: 204 };
      // The workflow asks again after its wait: the record answers, and nothing is sent.
      assert.deepEqual(await counting.attemptDelivery(input), { outcome: 'succeeded' });
      assert.equal(sent(), 1, 'the receiver got one POST');
      const [d] = await t.db.query<{ status: string; attempts: number; sending_token: string | null }[]>(
        'SELECT status, attempts, sending_token FROM webhook_deliveries WHERE id = $1',
        [deliveryId],
      );
      assert.deepEqual(d, { status: 'SUCCEEDED', attempts: 1, sending_token: null });
    });

    it('keeps trying to record while it holds the claim when the database fails, and never sends again', async () => {
      await pointAt('127.0.0.1');
      status = { status: 204 };
      /** The pool, with its next transactions failing: refused, or committed and the answer lost. */
      const failing = (kinds: ('refused' | 'lost')[]) =>
        new Proxy(t.db, {
          get(target, prop) {
            const value: unknown = Reflect.get(target, prop, target);
            if (prop !== 'transaction' || kinds.length === 0) {
              return typeof value === 'function'
                ? (value as (...a: unknown[]) => unknown).bind(target)
                : value;
            }
            const kind = kinds.shift();
            return async (...args: Parameters<typeof target.transaction>) => {
              if (kind === 'refused') throw new Error('sorry, too many clients already');
              await (target.transaction as (...a: unknown[]) => Promise<unknown>)(...args);
              throw new Error('Connection terminated unexpectedly');
            };
          },
        });
      const attemptWith = (db: typeof t.db) =>
        createDeliveryActivities({
          db,
          http: httpPost,
          clock: () => new Date(),
          secretsKey,
          allowPrivateTargets: true,
          cancelWorkflows: noCanceller,
        });
      for (const kinds of [['refused', 'refused'], ['lost']] as const) {
        const deliveryId = await newDelivery();
        const before = rx.received.length;
        const out = await attemptWith(failing([...kinds])).attemptDelivery({
          deliveryId,
          generation: 0,
          attempt: 1,
          nextDelayMs: 30_000,
        });
        assert.equal(out.outcome, 'succeeded', kinds.join(', '));
        assert.equal(rx.received.length, before + 1, 'sent once');
        const [d] = await t.db.query<{ status: string; sending_token: string | null }[]>(
          'SELECT status, sending_token FROM webhook_deliveries WHERE id = $1',
          [deliveryId],
        );
        assert.deepEqual(d, { status: 'SUCCEEDED', sending_token: null });
      }
    });

    it("takes over a claim whose holder's time ran out with no record (its worker died): the attempt is made again under its own number", async () => {
      await pointAt('127.0.0.1');
      status = { status: 204 };
      const reruns: string[] = [];
      const counting = createDeliveryActivities({
        db: t.db,
        http: httpPost,
        clock: () => new Date(),
        secretsKey,
        allowPrivateTargets: true,
        cancelWorkflows: noCanceller,
        metrics: { ...NO_METRICS, attemptRerun: (found) => reruns.push(found) },
      });
      const claimedBy = async (deliveryId: string, until: string) => {
        await t.db.query(
          `UPDATE webhook_deliveries SET sending_token = gen_random_uuid(), sending_attempt = 1,
                  sending_by = '4242@gone', sending_until = clock_timestamp() + $2::interval WHERE id = $1`,
          [deliveryId, until],
        );
      };
      const live = await newDelivery();
      await claimedBy(live, '1 minute');
      const before = rx.received.length;
      const input = { generation: 0, attempt: 1, nextDelayMs: 30_000 };
      assert.deepEqual(await counting.attemptDelivery({ ...input, deliveryId: live }), { outcome: 'busy' });
      assert.equal(rx.received.length, before, 'nothing sent while its holder may still be sending');

      const dead = await newDelivery();
      await claimedBy(dead, '-1 second');
      assert.equal((await counting.attemptDelivery({ ...input, deliveryId: dead })).outcome, 'succeeded');
      assert.equal(rx.received.length, before + 1);
      assert.equal(rx.received.at(-1)!.headers['service-delivery-attempt'], '1');
      assert.deepEqual(reruns, ['in_flight', 'expired']);
    });

    it('records nothing when Temporal cancels the attempt before its request left, so its re-run makes it', async () => {
      await pointAt('stalled.test');
      const deliveryId = await newDelivery();
      const asked = dns.queries();
      const { env, running } = underTemporal(deliveryId);
      await waitFor('the attempt to ask for the address', async () => dns.queries() > asked, 5_000, 20);
      env.cancel();
      await assert.rejects(running, /cancelled before its request was sent/);
      const recorded = await t.db.query('SELECT 1 FROM webhook_attempts WHERE delivery_id = $1', [
        deliveryId,
      ]);
      assert.equal(recorded.length, 0, 'no attempt recorded');
      const [d] = await t.db.query<{ status: string }[]>(
        'SELECT status FROM webhook_deliveries WHERE id = $1',
        [deliveryId],
      );
      assert.equal(d?.status, 'PENDING');
      const [claim] = await t.db.query<{ sending_token: string | null }[]>(
        'SELECT sending_token FROM webhook_deliveries WHERE id = $1',
        [deliveryId],
      );
      assert.equal(claim?.sending_token, null, 'its claim let go: the re-run need not wait');
    });
  });
});
