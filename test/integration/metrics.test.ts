import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { listenApi, type RunningApi } from '../../api/listen';
import { approveApproval } from '../../domain/approvals/operations/approve';
import type { ApprovalView } from '../../domain/approvals/views';
import { addConnection } from '../../domain/connections/operations/add';
import { generateApiKey } from '../../domain/identity/keys';
import { createApiKey } from '../../domain/identity/operations/key-create';
import { createEndpoint } from '../../domain/webhooks/operations/endpoint-create';
import { addMember } from '../../domain/identity/operations/member-add';
import { createLogger, type LogSink } from '../../infra/logger';
import { waitFor } from '../../tooling/processes';
import { startSmtpSink } from '../../tooling/smtp-sink';
import { installWorkerRuntime } from '../../worker/runtime';
import { asOperator, bearer, workspaceWithKey } from '../helpers/fixtures';
import { assertNoneIn, credentialsOf, detailsOf, rareContact } from '../helpers/leaks';
import { intakeBody } from '../helpers/leads';
import { mcpClient, structured } from '../helpers/mcp';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

/** One sample of a scraped page: `name{labels} value`. */
type Sample = { name: string; labels: Record<string, string>; value: number };

function samples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(l);
      assert.ok(m, `an exposition line: ${l}`);
      const labels = Object.fromEntries(
        [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((p) => [p[1]!, p[2]!]),
      );
      return { name: m[1]!, labels, value: Number(m[3]) };
    });
}

/** The value of the one sample named so whose labels include `labels`; fails when there is none. */
function valueOf(page: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = page.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  assert.ok(found.length > 0, `${name}${JSON.stringify(labels)} is exposed`);
  return found.reduce((sum, s) => sum + s.value, 0);
}

const scrape = async (url: string) => {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  return res.text();
};

/**
 * The API's and the worker's /metrics pages after REST calls (allowed, refused, rate-limited, an
 * unknown path), a webhook delivered to a loopback receiver, an email sent, and an assistant's gated
 * call approved: each series is there with its labels, and no key, secret, contact detail or record
 * id is in a label, nor any of them in a log line.
 */
describe('metrics: the API and the worker on their own ports', () => {
  const raw: string[] = [];
  const sink: LogSink = { write: (line) => void raw.push(line) };
  let s: WebhookStack;
  let api: RunningApi;
  let rx: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  before(async () => {
    // Before the worker connects: the SDK's runtime (its logger and its metrics exporter) is set up once.
    await installWorkerRuntime(createLogger('temporal', 'debug', sink), 'DEBUG');
    smtp = await startSmtpSink();
    s = await startWebhookStack({
      log: createLogger('worker', 'debug', sink),
      env: { REFUSED_PER_MINUTE: '2', SMTP_URL: smtp.url, MAIL_FROM: 'hello@acme.example' },
    });
    api = await listenApi({ ...s.config, port: 0 }, s.db, createLogger('api', 'debug', sink));
    rx = await startReceiver();
  });
  after(async () => {
    await api?.close();
    await rx?.close();
    await s?.stop();
    await smtp?.stop();
  });

  it('exposes requests, refusals, deliveries, approvals and the SDK, and no secret anywhere', async () => {
    const scopes = ['business:read', 'business:write', 'leads:read', 'leads:write'] as const;
    const w = await workspaceWithKey(s.db, { role: 'admin', scopes: [...scopes] });
    const workspaceId = w.workspace.id;
    const created = await asOperator(
      s.db,
      createApiKey,
      { ownerEmail: w.email, name: 'metrics', scopes: [...scopes] },
      { workspaceId },
    );
    const endpoint = await s.run(createEndpoint, { url: rx.url, events: ['lead.created'] }, { workspaceId });
    rx.setSecret(endpoint.secret);
    const http = request(api.url);

    // REST: allowed, a path with an email in it that no route serves, and a lead with contact details.
    await http.get('/api/v1/me').set(bearer(created.key)).expect(200);
    const contact = rareContact();
    await http.get(`/api/v1/people/${contact.email}`).set(bearer(created.key)).expect(404);
    const lead = await http
      .post('/api/v1/leads')
      .set(bearer(created.key))
      .set('Idempotency-Key', `metrics-${Date.now()}`)
      .send(intakeBody(contact));
    assert.equal(lead.status, 201, JSON.stringify(lead.body));
    const leadId = (lead.body as { data: { id: string } }).data.id;
    await http.get(`/api/v1/leads/${leadId}`).set(bearer(created.key)).expect(200);

    // A delivery: the worker carries lead.created to the receiver.
    await waitFor('the lead.created delivery', async () => rx.ofType('lead.created')[0]);
    await waitFor('the delivery recorded', async () => {
      const [d] = await s.deliveries(`event_type = 'lead.created' AND status = 'SUCCEEDED'`);
      return d;
    });

    // The assistant door: an email reply, and a gated call that an owner approves.
    await s.run(addMember, { email: 'boss@example.com', role: 'owner' }, { workspaceId });
    const connection = await s.run(addConnection, { system: 'google_calendar' }, { workspaceId });
    const { client, call } = await mcpClient(api.url, created.key, { protocolVersion: '2025-11-25' });
    const reply = await call('conversation.reply', {
      leadId,
      channel: 'email',
      body: 'Tuesday works.',
      subject: 'Your visit',
    });
    assert.equal(reply.isError, undefined);
    await waitFor('the email at the SMTP server', async () =>
      smtp.received.find((r) => r.to.includes(contact.email)),
    );
    const parked = structured<{ approval_id: string }>(
      await call('connection.disconnect', { connectionId: connection.id }),
    );
    await client.close();
    const approvalId = parked.approval_id;
    const outcome = (await s.run(approveApproval, {
      id: approvalId,
      as: 'boss@example.com',
    })) as ApprovalView;
    assert.equal(outcome.status, 'EXECUTED');

    // Last, as the brake holds every request from this address: wrong keys until it is braked
    // (REFUSED_PER_MINUTE=2).
    const wrongKeys = [generateApiKey(), generateApiKey(), generateApiKey()];
    const refused = [];
    for (const k of wrongKeys) refused.push((await http.get('/api/v1/me').set(bearer(k))).status);
    assert.deepEqual(refused, [401, 401, 429]);

    const apiText = await scrape(api.metricsUrl);
    const a = samples(apiText);
    const requests = (labels: Record<string, string>) => valueOf(a, 'leads_http_requests_total', labels);
    assert.equal(requests({ door: 'rest', route: '/api/v1/me', method: 'GET', status: '200' }), 1);
    // Refused before routing, still named by their route.
    assert.equal(requests({ door: 'rest', route: '/api/v1/me', status: '401' }), 2);
    assert.equal(requests({ door: 'rest', route: '/api/v1/me', status: '429' }), 1);
    assert.equal(requests({ door: 'rest', route: '/api/v1/leads', method: 'POST', status: '201' }), 1);
    assert.equal(requests({ door: 'rest', route: '/api/v1/leads/:id', method: 'GET', status: '200' }), 1);
    assert.equal(requests({ door: 'rest', route: 'unmatched', method: 'GET', status: '404' }), 1);
    assert.ok(requests({ door: 'mcp', route: '/api/mcp', method: 'POST', status: '200' }) >= 3);
    const buckets = a.filter(
      (x) => x.name === 'leads_http_request_duration_seconds_bucket' && x.labels.route === '/api/v1/leads',
    );
    assert.ok(
      buckets.some((x) => x.labels.le === '+Inf' && x.value === 1),
      'a latency histogram per route',
    );
    assert.equal(valueOf(a, 'leads_refusals_total', { door: 'rest', kind: 'unauthorized' }), 2);
    assert.equal(valueOf(a, 'leads_refusals_total', { door: 'rest', kind: 'rate_limited' }), 1);
    assert.equal(valueOf(a, 'leads_refusals_total', { door: 'rest', kind: 'not_found' }), 1);
    assert.equal(valueOf(a, 'leads_rate_limited_total', { door: 'rest', limit: 'address' }), 1);
    assert.equal(valueOf(a, 'leads_audit_backlog'), 0);
    assert.equal(valueOf(a, 'leads_audit_backlog_limit'), s.config.auditQueueLimit);
    assert.ok(valueOf(a, 'leads_db_pool_connections', { state: 'idle' }) >= 1);
    assert.ok(valueOf(a, 'leads_db_pool_max') > 0);
    assert.equal(valueOf(a, 'leads_db_pool_waiting'), 0);
    assert.equal(valueOf(a, 'leads_db_errors_total', { kind: 'unavailable' }), 0);
    assert.ok(valueOf(a, 'process_resident_memory_bytes') > 0, "the process's own series");
    const routes = new Set(a.filter((x) => x.labels.route).map((x) => x.labels.route));
    for (const r of routes) assert.match(r!, /^(\/[\w:.-]*)+$|^unmatched$/, `a route pattern: ${r}`);

    const workerText = await waitFor('the approval counted by the worker', async () => {
      const text = await scrape(s.worker!.metricsUrl);
      return /^leads_approvals_total\{status="EXECUTED"\} 1$/m.test(text) ? text : undefined;
    });
    const wk = samples(workerText);
    assert.equal(valueOf(wk, 'leads_webhook_deliveries_total', { outcome: 'succeeded' }), 1);
    assert.equal(valueOf(wk, 'leads_webhook_deliveries_total', { outcome: 'exhausted' }), 0);
    assert.equal(valueOf(wk, 'leads_webhook_attempt_duration_seconds_count', { outcome: 'succeeded' }), 1);
    assert.equal(valueOf(wk, 'leads_webhook_endpoints_disabled_total'), 0);
    assert.equal(valueOf(wk, 'leads_approvals_total', { status: 'APPROVED' }), 1);
    assert.equal(valueOf(wk, 'leads_approvals_total', { status: 'EXECUTED' }), 1);
    assert.equal(valueOf(wk, 'leads_messages_total', { channel: 'email', outcome: 'sent' }), 1);
    assert.equal(valueOf(wk, 'leads_messages_total', { channel: 'sms', outcome: 'sent' }), 0);
    // The deciders' "approval waiting" mail is mail to members, counted apart from messages to leads.
    assert.ok(valueOf(wk, 'leads_member_mail_total', { outcome: 'sent' }) >= 0);
    assert.equal(valueOf(wk, 'leads_member_mail_total', { outcome: 'permanent' }), 0);
    assert.ok(
      valueOf(wk, 'leads_relay_starts_total', { outbox: 'webhook_delivery', outcome: 'started' }) >= 1,
    );
    assert.ok(valueOf(wk, 'leads_relay_starts_total', { outbox: 'message', outcome: 'started' }) >= 1);
    assert.equal(valueOf(wk, 'leads_relay_lag_seconds', { outbox: 'webhook_delivery' }), 0);
    assert.ok(valueOf(wk, 'leads_db_pool_connections', { state: 'idle' }) >= 1);
    // The Temporal SDK's exporter, appended: its workflows and activities on this task queue.
    const queue = { task_queue: s.config.temporalTaskQueue };
    assert.ok(valueOf(wk, 'temporal_workflow_completed_total', queue) >= 1);
    assert.ok(valueOf(wk, 'temporal_activity_execution_latency_seconds_count', queue) >= 1);

    const secrets = {
      ...credentialsOf(
        {
          'the created key': created.key,
          "the workspace's first key": w.key.key,
          'a wrong key': wrongKeys[0]!,
        },
        endpoint.secret,
      ),
      ...detailsOf(contact),
      "the member's email": w.email,
      "the approver's email": 'boss@example.com',
    };
    // Ids are not secret, but a label holding one makes a series per record.
    const ids = { workspaceId, leadId, endpointId: endpoint.id, approvalId, connectionId: connection.id };
    assertNoneIn("the API's metrics page", [apiText], { ...secrets, ...ids });
    assertNoneIn("the worker's metrics page", [workerText], { ...secrets, ...ids });
    assert.ok(raw.length > 0, 'the logs were captured');
    assertNoneIn('a log line', raw, secrets);
  });

  it('answers 404 off /metrics', async () => {
    const res = await fetch(api.metricsUrl.replace(/\/metrics$/, '/api/v1/me'));
    assert.equal(res.status, 404);
  });
});
