import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import request from 'supertest';
import { twilioSignature } from '../../api/public/twilio-signature';
import { unsubscribeLinks } from '../../domain/conversations/unsubscribe-links';
import { issueInboundEmailSecret } from '../../domain/identity/operations/workspace-issue-inbound-email-secret';
import type { Services } from '../../domain/kernel/operation';
import { SCRUB_TOKEN_PATHS } from '../../domain/migrations/1763802100000-public-surfaces';
import { createLogger, type LogSink } from '../../infra/logger';
import { waitFor } from '../../tooling/processes';
import { SERVICE_DEFAULTS, testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { draftQuote, leadIn, send } from '../helpers/sales';
import { testServices } from '../../tooling/services';

const SMS_TOKEN = 'sms-auth-token-for-public-surfaces';
const PUBLIC_URL = 'https://leads.example.test';
const LIMIT = 3;

/**
 * The doors without an API key, as an attacker and an operator see them: no token in any audit row,
 * log line or metric label, whatever path is tried; and a rate limit on each family, counted in
 * PostgreSQL so that two API processes share it.
 */
describe('public surfaces: tokens kept out of records, rate limits shared across API processes', () => {
  let t: TestDatabase;
  let services: Services;
  let workspaceId: string;
  const logged: string[] = [];
  const sink: LogSink = { write: (line: string) => void logged.push(line) };
  const metrics = [new Registry(), new Registry()];
  /** Two API processes' apps on one database, with small limits; each has its own memory and series. */
  const app = (n: 0 | 1) =>
    testApp(t.db, {
      trustProxy: true,
      metrics: metrics[n],
      log: createLogger('api', 'debug', sink),
      config: {
        publicUrl: PUBLIC_URL,
        sms: { url: 'http://unused', accountSid: 'ACx', authToken: SMS_TOKEN, from: '+15550000000' },
        quotePagePerMinute: LIMIT,
        unsubscribePerMinute: LIMIT,
        hooksPerMinute: LIMIT,
        refusedPerMinute: LIMIT,
      },
    });
  let a: ReturnType<typeof testApp>;
  let b: ReturnType<typeof testApp>;
  let quote: { token: string; path: string };
  let leadId: string;

  before(async () => {
    t = await freshDatabase();
    services = testServices(t.db, { secretsKey: SERVICE_DEFAULTS.secretsKey });
    workspaceId = (await workspaceWithKey(t.db, { role: 'admin', scopes: ['leads:read'] })).workspace.id;
    const lead = await leadIn(services, workspaceId);
    leadId = lead.id;
    quote = await send(services, (await draftQuote(services, workspaceId, lead.id)).id, PUBLIC_URL);
    a = app(0);
    b = app(1);
  });
  after(async () => {
    await t.drop();
  });

  /** Each test gets its own client address, and a minute with time left in it (the windows are fixed). */
  let addresses = 0;
  const client = () => `203.0.113.${++addresses}`;
  const freshMinute = () =>
    waitFor('a minute with 15 s left', async () => new Date().getSeconds() < 45 || undefined, 20_000, 200);

  it('leaves no token in audit rows, log lines or metric labels, matched paths or not', async () => {
    const unsubscribe = unsubscribeLinks(SERVICE_DEFAULTS.secretsKey).token(leadId, 'someone@example.com');
    const tokens = [quote.token, unsubscribe];
    const tries: [string, string][] = [
      ['GET', quote.path],
      ['POST', `${quote.path}/accept`],
      ['GET', `${quote.path}/accept`],
      ['PUT', quote.path],
      ['DELETE', `${quote.path}/signature/extra`],
      ['GET', `/u/${unsubscribe}`],
      ['GET', `/u/${unsubscribe}/more`],
      ['PATCH', `/u/${unsubscribe}`],
    ];
    for (const [method, path] of tries) {
      const agent = request(a);
      const call = method.toLowerCase() as 'get' | 'post' | 'put' | 'delete' | 'patch';
      const res = await agent[call](path)
        .set('X-Forwarded-For', client())
        .type('form')
        .send(method === 'GET' ? undefined : 'name=Ana');
      assert.ok(res.status < 500, `${method} ${path}: ${res.status}`);
      assert.match(res.headers['content-type'] ?? '', /text\/html/, `${method} ${path} answers a page`);
    }
    const audit = JSON.stringify(await t.db.query(`SELECT * FROM audit_log`));
    const lines = logged.join('\n');
    const labels = (await Promise.all(metrics.map((m) => m.metrics()))).join('\n');
    for (const token of tokens) {
      assert.ok(!audit.includes(token), 'no token in the audit table');
      assert.ok(!lines.includes(token), 'no token in the logs');
      assert.ok(!labels.includes(token), 'no token in /metrics');
    }
    assert.ok(audit.includes('GET /quotes/*'), 'unmatched quote paths are recorded by their family');
    assert.ok(audit.includes('PATCH /u/*'), 'unmatched unsubscribe paths likewise');
    assert.ok(lines.length > 0 && labels.length > 0);
  });

  it('a migration scrubs tokens from audit rows written before', async () => {
    const token = 'Zm9yZ2VkLXRva2VuLXRoYXQtbG9va3MtcmVhbC0xMjM0NTY3';
    await t.db.query(
      `INSERT INTO audit_log (door, action, outcome, status, reason) VALUES
         ('rest', $1, 'refused', 404, $2), ('rest', $3, 'refused', 404, NULL)`,
      [`GET /quotes/${token}/accept`, `No route for GET /quotes/${token}/accept.`, `PUT /u/${token}`],
    );
    await t.db.query(SCRUB_TOKEN_PATHS);
    const rows = await t.db.query<{ action: string; reason: string | null }[]>(
      `SELECT action, reason FROM audit_log WHERE action IN ('GET /quotes/*', 'PUT /u/*') ORDER BY id`,
    );
    assert.deepEqual(rows.slice(-2), [
      { action: 'GET /quotes/*', reason: 'No route for GET /quotes/*.' },
      { action: 'PUT /u/*', reason: null },
    ]);
    assert.equal(JSON.stringify(await t.db.query(`SELECT * FROM audit_log`)).includes(token), false);
  });

  it('quote pages and unsubscribe links: per address, shared by two API processes, 429 as a page', async () => {
    await freshMinute();
    for (const [family, path] of [
      ['quote page', quote.path],
      ['unsubscribe', `/u/${unsubscribeLinks(SERVICE_DEFAULTS.secretsKey).token(leadId, 'x@example.com')}`],
    ] as const) {
      const ip = client();
      const get = (app: typeof a) => request(app).get(path).set('X-Forwarded-For', ip);
      const answers = [await get(a), await get(b), await get(a)];
      assert.deepEqual(
        answers.map((r) => r.status),
        [200, 200, 200],
        `${family}: ${LIMIT} requests pass, from either process`,
      );
      const refused = await get(b);
      assert.equal(refused.status, 429, `${family}: the next, on the other process, is refused`);
      assert.match(refused.headers['retry-after'] ?? '', /^\d+$/);
      assert.match(refused.headers['content-type'] ?? '', /text\/html/);
      assert.equal(
        (await request(a).get(path).set('X-Forwarded-For', client())).status,
        200,
        'another address',
      );
    }
  });

  it('provider webhooks: per workspace once proven; forged ones per address, without spending the budget', async () => {
    await freshMinute();
    const path = `/hooks/sms/${workspaceId}`;
    const sms = (app: typeof a, ip: string, token = SMS_TOKEN) => {
      const form = new URLSearchParams({ From: '+15557770000', Body: 'hi', MessageSid: `SM${randomUUID()}` });
      return request(app)
        .post(path)
        .set('X-Forwarded-For', ip)
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .set('X-Twilio-Signature', twilioSignature(token, PUBLIC_URL + path, form))
        .send(form.toString());
    };
    // Forged: refused 401 until the address is past its limit, then 429 before anything is checked.
    const forger = client();
    const forged = [
      await sms(a, forger, 'wrong'),
      await sms(b, forger, 'wrong'),
      await sms(a, forger, 'wrong'),
    ];
    assert.deepEqual(
      forged.map((r) => r.status),
      [401, 401, 401],
    );
    const stopped = await sms(b, forger);
    assert.equal(stopped.status, 429, 'the forging address is stopped, even with a good signature now');
    assert.equal(stopped.body.error.code, 'rate_limited');
    assert.match(stopped.headers['retry-after'] ?? '', /^\d+$/);

    // Proven: the workspace's budget is whole (the forged requests spent none of it), across processes.
    const provider = client();
    const proven = [await sms(a, provider), await sms(b, provider), await sms(a, provider)];
    assert.ok(
      proven.every((r) => r.status !== 429),
      `${LIMIT} proven webhooks pass (${proven.map((r) => r.status).join(', ')}): no lead has the number, so 404`,
    );
    const over = await sms(b, client());
    assert.equal(over.status, 429, 'the workspace is past its limit, from any address');
    assert.match(over.headers['retry-after'] ?? '', /^\d+$/);

    // The inbound-email route shares the workspace's budget.
    const { secret } = (await asOperator(services, issueInboundEmailSecret, {}, { workspaceId })) as {
      secret: string;
    };
    const mail = await request(a)
      .post(`/hooks/email/${workspaceId}`)
      .set('X-Forwarded-For', client())
      .set('Authorization', `Bearer ${secret}`)
      .set('Content-Type', 'message/rfc822')
      .send('From: a@example.com\r\nMessage-ID: <1@example.com>\r\n\r\nhi\r\n');
    assert.equal(mail.status, 429);
  });
});
