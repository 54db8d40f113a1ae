import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { createLead } from '../../domain/leads/operations/create';
import { resendDelivery } from '../../domain/webhooks/operations/delivery-resend';
import { testEndpoint } from '../../domain/webhooks/operations/endpoint-send-test';
import { waitFor } from '../../tooling/processes';
import { bearer } from '../helpers/fixtures';
import { intakeBody, postLead } from '../helpers/leads';
import { startReceiver, type Answer, type Receiver } from '../helpers/receiver';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

describe('signed webhooks end to end: API → outbox → relay → workflow → receiver', () => {
  let s: WebhookStack;
  const receivers: Receiver[] = [];
  const receiver = async (
    answer?: (r: Parameters<Parameters<typeof startReceiver>[0] & object>[0]) => Answer,
  ) => {
    const r = await startReceiver(answer);
    receivers.push(r);
    return r;
  };
  before(async () => {
    s = await startWebhookStack();
  });
  after(async () => {
    await s.stop();
    for (const r of receivers) await r.close();
  });

  it('delivers a correctly signed lead.created with all five headers, and records it', async () => {
    const rx = await receiver();
    const endpoint = await s.endpoint(rx, ['lead.created']);
    const res = await postLead(s.app, s.key, intakeBody());
    assert.equal(res.status, 201);
    const got = await waitFor(
      'lead.created at the receiver',
      async () => rx.ofType('lead.created')[0],
      15_000,
      20,
    );
    assert.equal(got.headers['content-type'], 'application/json');
    assert.match(got.headers['service-signature'] as string, /^t=\d+,v1=[0-9a-f]{64}$/);
    assert.match(got.headers['service-event-id'] as string, /^evt_[0-9a-f]{32}$/);
    assert.equal(got.headers['service-event-type'], 'lead.created');
    assert.equal(got.headers['service-delivery-attempt'], '1');
    assert.ok(got.helperOk, 'verifies with the receiver helper');
    assert.ok(got.independentOk, 'verifies with an independent HMAC');
    const t = Number(/t=(\d+)/.exec(got.headers['service-signature'] as string)![1]);
    assert.ok(Math.abs(t - Date.now() / 1000) < 30, 'signed at the time of the attempt');
    const envelope = JSON.parse(got.body);
    assert.deepEqual(Object.keys(envelope), ['id', 'type', 'created_at', 'data']);
    assert.equal(envelope.id, got.headers['service-event-id']);
    assert.match(envelope.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(envelope.data.lead_id, res.body.data.id);
    assert.equal(rx.received.length, 1, 'only the subscribed type arrives');

    const d = await s.waitForDelivery('event_id = $1', [envelope.id], (x) => x.status === 'SUCCEEDED');
    assert.equal(d.attempts, 1);
    assert.equal(d.response_status, 204);
    assert.ok(d.delivered_at);
    const list = await request(s.app)
      .get('/api/v1/events?type=lead.created&status=SUCCEEDED')
      .set(bearer(s.key))
      .expect(200);
    const item = list.body.data.find((x: { event_id: string }) => x.event_id === envelope.id);
    assert.deepEqual(Object.keys(item).sort(), [
      'attempts',
      'created_at',
      'delivered_at',
      'event_id',
      'id',
      'next_attempt_at',
      'payload',
      'response_status',
      'status',
      'type',
    ]);
    assert.deepEqual(item.payload, envelope);
    const text = JSON.stringify(list.body);
    assert.ok(!text.includes(rx.url) && !text.includes(endpoint.secret), 'never the URL or the secret');
    const bad = await request(s.app).get('/api/v1/events?status=DONE').set(bearer(s.key));
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'status');
  });

  it('gives up at once on a 410 and disables the endpoint, telling its owner; does not follow a 301 (a failure, retried later)', async () => {
    const gone = await receiver(() => ({ status: 410 }));
    const goneEndpoint = await s.endpoint(gone, ['lead.created']);
    const moved = await receiver((r) =>
      r.path.endsWith('/moved') ? { status: 204 } : { status: 301, headers: { location: '/hooks/moved' } },
    );
    await s.endpoint(moved, ['lead.created']);
    await postLead(s.app, s.key, intakeBody());
    const eventId = await waitFor(
      'both answers',
      async () =>
        gone.received[0] && moved.received[0] ? gone.received[0].headers['service-event-id'] : undefined,
      15_000,
      20,
    );
    const exhausted = await s.waitForDelivery(
      'event_id = $1 AND response_status = 410',
      [eventId],
      (d) => d.status === 'EXHAUSTED',
    );
    assert.equal(exhausted.attempts, 1);
    assert.equal(exhausted.next_attempt_at, null);
    const redirected = await s.waitForDelivery(
      'event_id = $1 AND response_status = 301',
      [eventId],
      (d) => d.status === 'FAILED',
    );
    assert.equal(redirected.attempts, 1);
    assert.ok(
      redirected.next_attempt_at && redirected.next_attempt_at.getTime() > Date.now() + 20_000,
      'next attempt in about 30 s',
    );
    assert.equal(moved.received.length, 1, 'the redirect was not followed');
    assert.equal(gone.received.length, 1, 'a 410 is not retried');
    const [e] = await s.db.query<{ status: string; disabled_reason: string }[]>(
      'SELECT status, disabled_reason FROM webhook_endpoints WHERE id = $1',
      [goneEndpoint.id],
    );
    assert.deepEqual(e, { status: 'DISABLED', disabled_reason: 'the receiver answered 410 Gone' });
    const told = await s.db.query<{ kind: string; message: string }[]>(
      `SELECT kind, message FROM notifications WHERE data->>'endpoint_id' = $1`,
      [goneEndpoint.id],
    );
    assert.equal(told.length, 1);
    assert.equal(told[0]!.kind, 'webhook_endpoint.disabled');
    assert.match(told[0]!.message, /410 Gone/);
    // The next event reaches the other endpoint, and is not even queued for the disabled one.
    await postLead(s.app, s.key, intakeBody());
    await waitFor('the next event at the other endpoint', async () => moved.received[1], 15_000, 20);
    assert.equal((await s.deliveries('endpoint_id = $1', [goneEndpoint.id])).length, 1);
    assert.equal(gone.received.length, 1);
  });

  it('sends endpoint.test through the same path, and resends a delivery that gave up as attempt 2 of the same event', async () => {
    let fixed = false;
    const rx = await receiver(() => ({ status: fixed ? 200 : 400 }));
    const endpoint = await s.endpoint(rx, ['lead.created']);
    const queued = await s.run(testEndpoint, { id: endpoint.id });
    assert.equal(queued.type, 'endpoint.test');
    const first = await waitFor('the test event', async () => rx.ofType('endpoint.test')[0], 15_000, 20);
    assert.ok(first.helperOk);
    await s.waitForDelivery('id = $1', [queued.id], (d) => d.status === 'EXHAUSTED');
    fixed = true;
    await s.run(resendDelivery, { id: queued.id });
    const second = await waitFor('the resent attempt', async () => rx.ofType('endpoint.test')[1], 15_000, 20);
    assert.equal(second.headers['service-delivery-attempt'], '2');
    assert.equal(second.headers['service-event-id'], first.headers['service-event-id']);
    assert.equal(second.body, first.body, 'the same bytes on every attempt');
    const ts = (r: typeof first) => Number(/t=(\d+)/.exec(r.headers['service-signature'] as string)![1]);
    assert.ok(ts(second) >= ts(first) && second.helperOk, 'signed afresh at the time of the attempt');
    const d = await s.waitForDelivery('id = $1', [queued.id], (x) => x.status === 'SUCCEEDED');
    assert.equal(d.attempts, 2);
    assert.equal(d.generation, 1);
  });

  it('times out a hanging receiver at 10 seconds and schedules a retry', async () => {
    const rx = await receiver(() => 'hang');
    const endpoint = await s.endpoint(rx, ['lead.created']);
    await postLead(s.app, s.key, intakeBody());
    const d = await s.waitForDelivery(
      `endpoint_id = $1`,
      [endpoint.id],
      (x) => x.status === 'FAILED',
      25_000,
    );
    const [attempt] = await s.db.query<
      { duration_ms: number; error_class: string; response_status: number | null }[]
    >('SELECT duration_ms, error_class, response_status FROM webhook_attempts WHERE delivery_id = $1', [
      d.id,
    ]);
    assert.equal(attempt!.error_class, 'timeout');
    assert.equal(attempt!.response_status, null);
    // The deadline is a monotonic timer and the duration two wall-clock readings: they may differ by
    // the clock's millisecond, so 9,999 ms is the same 10 s deadline.
    assert.ok(
      attempt!.duration_ms >= 9_990 && attempt!.duration_ms < 11_500,
      `took ${attempt!.duration_ms} ms`,
    );
  });

  it('disables an endpoint after 20 deliveries in a row gave up, cancels its waiting deliveries and tells the owner', async () => {
    const rx = await receiver((r) => ({
      status: r.headers['service-event-type'] === 'lead.status_changed' ? 503 : 400,
    }));
    const endpoint = await s.endpoint(rx, ['lead.created', 'lead.status_changed']);
    const intake = () =>
      s.run(createLead, { ...intakeBody(), idempotency_key: randomUUID() }, { workspaceId: s.workspace.id });
    // Three deliveries left waiting in the ladder (503 is retried)...
    const first = await intake();
    for (const status of ['CONTACTED', 'RESPONDED', 'CONTACTED']) {
      await request(s.app)
        .patch(`/api/v1/leads/${first.data!.id}`)
        .set(bearer(s.key))
        .send({ status })
        .expect(200);
    }
    await waitFor(
      'three waiting deliveries',
      async () => (await s.deliveries(`endpoint_id = $1 AND status = 'FAILED'`, [endpoint.id])).length === 3,
      20_000,
      50,
    );
    // ...then 19 more leads whose lead.created answers 400: with the first, 20 in a row give up.
    for (let i = 0; i < 19; i++) await intake();
    await waitFor(
      'the endpoint to be disabled',
      async () => {
        const [e] = await s.db.query<{ status: string }[]>(
          'SELECT status FROM webhook_endpoints WHERE id = $1',
          [endpoint.id],
        );
        return e!.status === 'DISABLED';
      },
      30_000,
      100,
    );
    const [e] = await s.db.query<{ disabled_reason: string; consecutive_failures: number }[]>(
      'SELECT disabled_reason, consecutive_failures FROM webhook_endpoints WHERE id = $1',
      [endpoint.id],
    );
    assert.match(e!.disabled_reason, /20 deliveries in a row failed/);
    assert.equal(e!.consecutive_failures, 20);
    const waiting = await s.deliveries(`endpoint_id = $1 AND event_type = 'lead.status_changed'`, [
      endpoint.id,
    ]);
    assert.deepEqual(
      waiting.map((d) => d.status),
      ['CANCELLED', 'CANCELLED', 'CANCELLED'],
    );
    for (const d of waiting) {
      const description = await waitFor(
        'the workflow to be cancelled',
        async () => {
          const desc = await s.client.workflow.getHandle(`webhook-delivery:${d.id}`).describe();
          return desc.status.name === 'CANCELLED' ? desc : undefined;
        },
        10_000,
        100,
      );
      assert.equal(description.memo?.event_type, 'lead.status_changed');
      // The Web UI's list says what the run is without opening it: event type and endpoint host only.
      assert.equal(await description.staticSummary(), `lead.status_changed to ${new URL(rx.url).host}`);
    }
    const [note] = await s.db.query<{ kind: string; message: string }[]>(
      `SELECT kind, message FROM notifications WHERE data->>'endpoint_id' = $1`,
      [endpoint.id],
    );
    assert.equal(note!.kind, 'webhook_endpoint.disabled');
    assert.match(note!.message, /disabled: 20 deliveries in a row failed/);
    assert.equal(rx.ofType('lead.status_changed').length, 3, 'no attempt after cancellation');
  });
});
