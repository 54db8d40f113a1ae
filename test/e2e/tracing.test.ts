import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { replyToConversation } from '../../domain/conversations/operations/conversation-reply';
import { flushTracing } from '../../infra/tracing';
import { startSmsSink } from '../../tooling/sms-sink';
import { startSmtpSink } from '../../tooling/smtp-sink';
import { waitFor } from '../../tooling/processes';
import { intakeBody, postLead } from '../helpers/leads';
import { rpc, serve } from '../helpers/mcp';
import { startOtlpReceiver, type ExportedSpan } from '../helpers/otlp-receiver';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

const SERVER = 2;
const CLIENT = 3;

/** A caller's own trace: what its `traceparent` says, and the ids a test looks for. */
function callerTrace() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** The W3C header's parts. */
const parse = (traceparent: string) => {
  const [, traceId, parentId] = traceparent.split('-');
  return { traceId: traceId!, parentId: parentId! };
};

/**
 * One trace through the real stack (the API, the operation, the outbox, the relay, the dev server's
 * workflow and its activity, the receiver's POST), exported over OTLP/HTTP JSON to a collector in this
 * process; the receiver gets the trace's `traceparent`.
 */
describe('tracing: one trace from the request to the receiver', () => {
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let receiver: Receiver;
  let stack: WebhookStack;
  let api: Awaited<ReturnType<typeof serve>>;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let sms: Awaited<ReturnType<typeof startSmsSink>>;

  before(async () => {
    otlp = await startOtlpReceiver();
    receiver = await startReceiver();
    smtp = await startSmtpSink();
    sms = await startSmsSink({ accountSid: 'AC-trace', authToken: 'trace-token' });
    stack = await startWebhookStack({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'lead-service-under-test',
        SMTP_URL: smtp.url,
        MAIL_FROM: 'hello@acme.example',
        SMS_API_URL: sms.url,
        SMS_ACCOUNT_SID: 'AC-trace',
        SMS_AUTH_TOKEN: 'trace-token',
        SMS_FROM: '+15550000001',
      },
    });
    await stack.endpoint(receiver, ['lead.created']);
    api = await serve(stack.app);
  });
  after(async () => {
    await api?.close();
    await stack?.stop();
    await receiver?.close();
    await smtp?.stop();
    await sms?.stop();
    await otlp?.close();
  });

  /** The delivery the receiver got for this lead, once it came. */
  const deliveryOf = (leadId: string) =>
    waitFor(
      `the receiver's delivery for ${leadId}`,
      async () => receiver.received.find((r) => r.body.includes(leadId)),
      30_000,
      50,
    );

  /** The span with this id, once the exporter has sent it (the batch is flushed while waiting). */
  const spanOf = (traceId: string, spanId: string) =>
    waitFor(
      `span ${spanId} of trace ${traceId}`,
      async () => {
        await flushTracing();
        return otlp.trace(traceId).find((s) => s.spanId === spanId);
      },
      30_000,
      100,
    );

  /**
   * The chain from the trace's first span of ours down to `from`, once every span of it has been
   * exported: its top is the root, or the child of `callerSpan` (the caller's, never exported here).
   */
  const chainDownTo = (traceId: string, from: ExportedSpan, callerSpan?: string) =>
    waitFor(
      `the whole chain above ${from.name} in trace ${traceId}`,
      async () => {
        await flushTracing();
        const chain = [from];
        for (let at = from; at.parentSpanId && at.parentSpanId !== callerSpan;) {
          const parent = otlp.trace(traceId).find((s) => s.spanId === at.parentSpanId);
          if (!parent) return undefined;
          chain.push(parent);
          at = parent;
        }
        return chain.reverse();
      },
      30_000,
      100,
    );

  /** Names from the root down, with the workflow and activity spans as Temporal's interceptors name them. */
  const DELIVERY_PATH = [
    'relay webhook delivery',
    'StartWorkflow:deliverWebhookWorkflow',
    'RunWorkflow:deliverWebhookWorkflow',
    'StartActivity:attemptDelivery',
    'RunActivity:attemptDelivery',
    'POST',
  ];

  it('a REST request continues the caller’s trace through the workflow to the receiver, which gets it', async () => {
    const caller = callerTrace();
    const res = await postLead(stack.app, stack.key, intakeBody(), randomUUID()).set(
      'traceparent',
      caller.traceparent,
    );
    assert.equal(res.status, 201);
    const delivery = await deliveryOf(res.body.data.id as string);

    // The receiver's traceparent is in the caller's trace; its parent is our POST span.
    const sent = parse(String(delivery.headers.traceparent));
    assert.equal(sent.traceId, caller.traceId);
    assert.ok(delivery.helperOk, 'the signature still verifies with the trace header added');
    const post = await spanOf(caller.traceId, sent.parentId);
    assert.equal(post.kind, CLIENT);
    assert.equal(post.name, 'POST');
    assert.equal(post.attributes['http.response.status_code'], 204);
    assert.equal(post.attributes['server.address'], '127.0.0.1');

    const chain = await chainDownTo(caller.traceId, post, caller.spanId);
    assert.deepEqual(
      chain.map((s) => s.name),
      ['POST /api/v1/leads', 'operation lead.create', ...DELIVERY_PATH],
    );
    const [request, operation] = chain;
    // The request span is the caller's child, a server span named by its route, with its request id.
    assert.equal(request!.parentSpanId, caller.spanId);
    assert.equal(request!.kind, SERVER);
    assert.equal(request!.attributes['http.response.status_code'], 201);
    assert.equal(request!.attributes['request.id'], res.headers['request-id']);
    assert.equal(operation!.attributes['operation.door'], 'rest');
    assert.equal(operation!.attributes['operation.outcome'], 'allowed');
    for (const s of chain) assert.equal(s.service, 'lead-service-under-test');

    // The outbox row kept the operation's context: the relay's span is the operation's child.
    const [event] = await stack.db.query<{ traceparent: string }[]>(
      `SELECT traceparent FROM events WHERE data->>'subject_id' = $1`,
      [res.body.data.id],
    );
    assert.deepEqual(parse(event!.traceparent), { traceId: caller.traceId, parentId: operation!.spanId });
  });

  it('a request without trace context starts a trace of its own', async () => {
    const res = await postLead(stack.app, stack.key, intakeBody());
    assert.equal(res.status, 201);
    const delivery = await deliveryOf(res.body.data.id as string);
    const sent = parse(String(delivery.headers.traceparent));
    const post = await spanOf(sent.traceId, sent.parentId);
    const chain = await chainDownTo(sent.traceId, post);
    assert.equal(chain[0]!.name, 'POST /api/v1/leads');
    assert.equal(chain[0]!.parentSpanId, undefined, 'the request span is the root');
    assert.equal(chain.length, 8);
  });

  it('an MCP tools/call continues the trace its _meta carries, linked to the HTTP request', async () => {
    const caller = callerTrace();
    const answer = await rpc(
      api.url,
      stack.key,
      'tools/call',
      { name: 'lead.create', arguments: { ...intakeBody(), idempotency_key: randomUUID() } },
      { meta: { traceparent: caller.traceparent } },
    );
    assert.equal(answer.status, 200);
    const leadId = (answer.result!.structuredContent as { data: { id: string } }).data.id;
    const delivery = await deliveryOf(leadId);
    const sent = parse(String(delivery.headers.traceparent));
    assert.equal(sent.traceId, caller.traceId);
    const post = await spanOf(caller.traceId, sent.parentId);
    const chain = await chainDownTo(caller.traceId, post, caller.spanId);
    assert.deepEqual(
      chain.map((s) => s.name),
      ['tools/call lead.create', 'operation lead.create', ...DELIVERY_PATH],
    );
    const [call, operation] = chain;
    assert.equal(call!.parentSpanId, caller.spanId);
    assert.equal(call!.attributes['gen_ai.tool.name'], 'lead.create');
    assert.equal(operation!.attributes['operation.door'], 'mcp');
    // The HTTP request's own span (a trace of its own: the header carried none) is linked.
    const [link] = call!.links;
    assert.ok(link, 'the tools/call span links to the HTTP request span');
    const http = await spanOf(link.traceId, link.spanId);
    assert.equal(http.name, 'POST /api/mcp');
  });

  for (const [channel, handOver] of [
    ['email', 'SMTP send'],
    ['sms', 'POST'],
  ] as const)
    it(`a queued ${channel} message's sending continues the trace of the change that queued it`, async () => {
      const lead = await postLead(stack.app, stack.key, intakeBody({ phone: '+15550001234' }));
      const queued = await stack.run(replyToConversation, {
        leadId: lead.body.data.id,
        channel,
        body: 'Tuesday works.',
        ...(channel === 'email' && { subject: 'Your visit' }),
      });
      const [row] = await stack.db.query<{ traceparent: string }[]>(
        `SELECT traceparent FROM messages WHERE id = $1`,
        [queued.id],
      );
      const { traceId } = parse(row!.traceparent);
      const sent = await waitFor(
        `the ${channel} hand-over's span`,
        async () => {
          await flushTracing();
          return otlp.trace(traceId).find((s) => s.name === handOver && s.kind === CLIENT);
        },
        30_000,
        100,
      );
      assert.equal(sent.attributes['provider.outcome'], 'sent');
      assert.equal(sent.attributes['server.address'], '127.0.0.1');
      const chain = await chainDownTo(traceId, sent);
      assert.deepEqual(
        chain.map((s) => s.name),
        [
          'operation conversation.reply',
          'relay message',
          'StartWorkflow:sendMessageWorkflow',
          'RunWorkflow:sendMessageWorkflow',
          'StartActivity:handOverMessage',
          'RunActivity:handOverMessage',
          handOver,
        ],
      );
      // Contact details stay out of traces: no span of the trace holds the address or the text.
      const everything = JSON.stringify(otlp.trace(traceId));
      for (const secret of [lead.body.data.email, '+15550001234', 'Tuesday works.'])
        assert.ok(!everything.includes(secret), `no span holds ${secret}`);
    });
});
