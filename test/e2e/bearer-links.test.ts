import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { getConversation } from '../../domain/conversations/operations/conversation-get';
import { createApiKey } from '../../domain/identity/operations/key-create';
import { addMember } from '../../domain/identity/operations/member-add';
import { scrubQuoteLinks } from '../../domain/migrations/1763802600000-bearer-links';
import { listenApi, type RunningApi } from '../../api/listen';
import { createLogger, type LogSink } from '../../infra/logger';
import { flushTracing } from '../../infra/tracing';
import { startSmtpSink } from '../../tooling/smtp-sink';
import { waitFor } from '../../tooling/processes';
import { installWorkerRuntime } from '../../worker/runtime';
import { messageWorkflowId } from '../../infra/temporal/workflow-ids';
import { runAdmin } from '../helpers/admin';
import { bearer } from '../helpers/fixtures';
import { mcpClient, structured } from '../helpers/mcp';
import { startOtlpReceiver } from '../helpers/otlp-receiver';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { draftQuote, leadIn, send } from '../helpers/sales';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';
import { testServices } from '../../tooling/services';

/**
 * A quote's page link is a bearer credential: whoever holds it signs for the customer. After a quote is
 * sent through the real stack (API, worker, Temporal, SMTP, an OTLP collector, a webhook receiver, logs
 * at debug), a key that may only read leads reads everything it can about the lead and its
 * conversation, on every door, and nothing it reads, nor any row, log line, metric, span or workflow
 * history, holds the token; the link in the customer's email still opens the page and signs.
 */
describe('bearer links: a quote page token exists only in the email that leaves', () => {
  const logged: string[] = [];
  const sink: LogSink = { write: (line) => void logged.push(line) };
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let rx: Receiver;
  let s: WebhookStack;
  let api: RunningApi;

  before(async () => {
    // Before the worker connects: the SDK's runtime takes its logger once.
    await installWorkerRuntime(createLogger('temporal', 'debug', sink), 'DEBUG');
    otlp = await startOtlpReceiver();
    smtp = await startSmtpSink();
    rx = await startReceiver();
    s = await startWebhookStack({
      log: createLogger('worker', 'debug', sink),
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'sales@seller.example',
        PUBLIC_URL: 'http://127.0.0.1:9',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      },
    });
    await s.endpoint(rx, ['*']);
    api = await listenApi({ ...s.config, port: 0 }, s.db, createLogger('api', 'debug', sink));
  });
  after(async () => {
    await api?.close();
    await s?.stop();
    await rx?.close();
    await smtp?.stop();
    await otlp?.close();
  });

  it('no reader finds it; the emailed link opens the page and signs', async () => {
    const workspaceId = s.workspace.id;
    await s.run(addMember, { email: 'viewer@seller.example', role: 'viewer' }, { workspaceId });
    const viewer = (await s.run(
      createApiKey,
      { ownerEmail: 'viewer@seller.example', name: 'read only', scopes: ['leads:read'] },
      { workspaceId },
    )) as { key: string };
    const lead = await leadIn(testServices(s.db), workspaceId, { email: `ana.${Date.now()}@buyer.example` });
    const quote = await draftQuote(testServices(s.db), workspaceId, lead.id);
    const sent = await send(testServices(s.db), quote.id);

    const mail = await waitFor(
      'the quote email in the SMTP sink',
      async () => smtp.received.find((r) => r.to.includes(lead.email!)),
      30_000,
      50,
    );
    const link = /http:\/\/127\.0\.0\.1:9\/quotes\/([A-Za-z0-9_-]{43})/.exec(mail.mail.text ?? '');
    assert.ok(link, `the email carries the page's link: ${mail.mail.text}`);
    const token = link[1]!;
    await waitFor('the message marked sent', async () => {
      const [m] = await s.db.query<{ status: string }[]>(`SELECT status FROM messages WHERE id = $1`, [
        sent.message_id,
      ]);
      return m?.status === 'sent' || undefined;
    });

    // Everything the read-only key reads about the lead and its conversation.
    const http = request(api.url);
    const read: string[] = [];
    const restLead = await http.get(`/api/v1/leads/${lead.id}`).set(bearer(viewer.key));
    assert.equal(restLead.status, 200);
    read.push(restLead.text);
    const mcp = await mcpClient(api.url, viewer.key, { protocolVersion: '2026-07-28' });
    try {
      const got = await mcp.call('lead.get', { leadId: lead.id });
      read.push(JSON.stringify(got));
      const conversation = await mcp.call('conversation.get', { leadId: lead.id, channel: 'email' });
      assert.ok(!conversation.isError, JSON.stringify(conversation));
      const shown = JSON.stringify(structured(conversation));
      assert.match(shown, /\[link to quote Q-\d{6}, revision 1\]/, 'the conversation says a link was sent');
      read.push(JSON.stringify(conversation));
    } finally {
      await mcp.client.close();
    }
    const admin = runAdmin({ DATABASE_URL: s.t.url, TEMPORAL_ADDRESS: s.config.temporalAddress }, [
      'conversation',
      'get',
      '--lead',
      lead.id,
      '--channel',
      'email',
    ]);
    assert.equal(admin.code, 0, admin.stderr);
    read.push(admin.stdout);
    read.push(
      JSON.stringify(await s.run(getConversation, { leadId: lead.id, channel: 'email' }, { workspaceId })),
    );
    await waitFor('the quote.sent delivery', async () => rx.ofType('quote.sent')[0]);
    read.push(...rx.received.map((r) => r.body));
    for (const text of read) assert.ok(!text.includes(token), `the token is in what a reader got: ${text}`);

    // The customer's link still opens the page and signs.
    const page = await http.get(`/quotes/${token}`);
    assert.equal(page.status, 200);
    assert.match(page.text, /Onboarding workshop/);
    await http
      .post(`/quotes/${token}/accept`)
      .type('form')
      .send({ name: 'Ana Buyer', consent: 'yes' })
      .expect(303);
    const [row] = await s.db.query<{ status: string; token_hash: string | null }[]>(
      `SELECT status, token_hash FROM quotes WHERE id = $1`,
      [quote.id],
    );
    assert.deepEqual(row, { status: 'ACCEPTED', token_hash: null });

    // Nor is it anywhere the service keeps or says things.
    const table = async (sql: string) => (await s.db.query<{ row: string }[]>(sql)).map((r) => r.row);
    const history = await s.client.workflow.getHandle(messageWorkflowId(sent.message_id)).fetchHistory();
    await flushTracing();
    const places: Record<string, string[]> = {
      'the messages table': await table(`SELECT m::text AS row FROM messages m`),
      'the quotes table': await table(`SELECT q::text AS row FROM quotes q`),
      'the audit log': await table(`SELECT a::text AS row FROM audit_log a`),
      'the events': await table(`SELECT e::text AS row FROM events e`),
      'the webhook deliveries': await table(`SELECT d::text AS row FROM webhook_deliveries d`),
      'the logs': logged,
      "the API's metrics": [await (await fetch(api.metricsUrl)).text()],
      "the worker's metrics": [await (await fetch(s.worker!.metricsUrl)).text()],
      'the exported spans': otlp.spans.map((span) => JSON.stringify(span)),
      "the message workflow's history": [JSON.stringify(history)],
    };
    assert.ok(otlp.spans.length > 0 && logged.length > 0 && history.events!.length > 0);
    for (const [where, texts] of Object.entries(places))
      for (const text of texts)
        assert.ok(!text.includes(token), `the token is in ${where}: ${text.slice(0, 500)}`);
  });

  it('the migration scrubs a link a stored body held, and that link keeps working', async () => {
    const workspaceId = s.workspace.id;
    const lead = await leadIn(testServices(s.db), workspaceId, { email: `old.${Date.now()}@buyer.example` });
    const quote = await draftQuote(testServices(s.db), workspaceId, lead.id);
    const { message_id } = await send(testServices(s.db), quote.id);
    // As a quote sent before links were derived left things: a random token, its hash, the link stored.
    const old = 'OldRandomTokenOldRandomTokenOldRandomToken0';
    await s.db.query(`UPDATE quotes SET token_hash = encode(sha256($2::bytea), 'hex') WHERE id = $1`, [
      quote.id,
      old,
    ]);
    await s.db.query(`UPDATE messages SET body = body || $2, page_link = NULL WHERE id = $1`, [
      message_id,
      `\nOld link: https://leads.example.com/quotes/${old}`,
    ]);
    const forwarded = await s.db.query<{ id: string }[]>(
      `INSERT INTO messages (workspace_id, lead_id, channel, direction, status, body)
       VALUES ($1, $2, 'email', 'inbound', 'received', $3) RETURNING id`,
      [workspaceId, lead.id, `Is this right? https://leads.example.com/quotes/${old}`],
    );

    assert.deepEqual(await scrubQuoteLinks({ query: (sql: string) => s.db.query(sql) }), {
      quoteEmails: 1,
      others: 1,
    });
    const bodies = await s.db.query<{ id: string; body: string; page_link: unknown }[]>(
      `SELECT id, body, page_link FROM messages WHERE id = ANY($1)`,
      [[message_id, forwarded[0]!.id]],
    );
    const quoteEmail = bodies.find((b) => b.id === message_id)!;
    assert.match(quoteEmail.body, /Old link: \[link to quote Q-\d{6}, revision 1\]$/);
    assert.equal((quoteEmail.page_link as { subject: string }).subject, quote.id);
    assert.equal(bodies.find((b) => b.id !== message_id)!.body, 'Is this right? [link to a quote]');
    for (const b of bodies) assert.ok(!b.body.includes(old));
    // The customer's old link still opens the page.
    assert.equal((await request(api.url).get(`/quotes/${old}`)).status, 200);
  });
});
