import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { generateApiKey } from '../../domain/identity/keys';
import { createApiKey } from '../../domain/identity/operations/key-create';
import { createEndpoint } from '../../domain/webhooks/operations/endpoint-create';
import { createLogger, type LogSink } from '../../infra/logger';
import { waitFor } from '../../tooling/processes';
import { installWorkerRuntime } from '../../worker/runtime';
import { testApp } from '../helpers/api';
import { asOperator, bearer, workspaceWithKey } from '../helpers/fixtures';
import { assertNoneIn, credentialsOf, detailsOf, rareContact } from '../helpers/leaks';
import { intakeBody, postLead } from '../helpers/leads';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

type Line = Record<string, unknown> & { level: string; name: string; msg: string };

/**
 * Every line the API, the worker and the Temporal SDK write, at debug, while a key is made and used,
 * a wrong key is refused, a lead with contact details comes in and is delivered to a webhook, and a
 * request fails: none may hold the key, the signing secret, or the lead's contact details.
 */
describe('logs: no key, secret or contact detail in any line', () => {
  const raw: string[] = [];
  const sink: LogSink = { write: (line) => void raw.push(line) };
  const lines = () => raw.map((l) => JSON.parse(l) as Line);
  let s: WebhookStack;
  let rx: Receiver;
  before(async () => {
    // Before the worker connects: the SDK's runtime takes its logger once.
    await installWorkerRuntime(createLogger('temporal', 'debug', sink), 'DEBUG');
    s = await startWebhookStack({ log: createLogger('worker', 'debug', sink) });
    rx = await startReceiver();
  });
  after(async () => {
    await rx.close();
    await s.stop();
  });

  it('leaves them out of every line, and puts the request id on every API line', async () => {
    const app = testApp(s.db, { log: createLogger('api', 'debug', sink) });
    const w = await workspaceWithKey(s.db, { scopes: ['leads:read', 'leads:write', 'business:read'] });
    const workspaceId = w.workspace.id;
    const created = await asOperator(
      s.db,
      createApiKey,
      { ownerEmail: w.email, name: 'logging', scopes: ['leads:read', 'leads:write', 'business:read'] },
      { workspaceId },
    );
    const endpoint = await s.run(createEndpoint, { url: rx.url, events: ['lead.created'] }, { workspaceId });
    rx.setSecret(endpoint.secret);

    await request(app).get('/api/v1/me').set(bearer(created.key)).expect(200);
    const wrongKey = generateApiKey();
    await request(app).get('/api/v1/me').set(bearer(wrongKey)).expect(401);

    const contact = rareContact();
    const lead = await postLead(app, created.key, intakeBody(contact));
    assert.equal(lead.status, 201, JSON.stringify(lead.body));
    await request(app).get(`/api/v1/leads/${lead.body.data.id}`).set(bearer(created.key)).expect(200);
    // The worker carried the lead to the receiver: the details passed through it.
    const delivered = await waitFor('the lead.created delivery', async () => rx.ofType('lead.created')[0]);
    assert.ok(delivered.body.includes(contact.email) && delivered.helperOk);

    // An error path: the database refuses the insert with a message that quotes the email.
    await s.db.query(`
      CREATE FUNCTION refuse_lead() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused lead %', NEW.email; END $$;
      CREATE TRIGGER refuse_lead BEFORE INSERT ON leads FOR EACH ROW EXECUTE FUNCTION refuse_lead();`);
    const failing = { ...contact, email: `failing.${contact.email}`, phone: '+33 6 11 22 33 44' };
    let failed;
    try {
      failed = await postLead(app, created.key, intakeBody(failing));
    } finally {
      await s.db.query('DROP TRIGGER refuse_lead ON leads; DROP FUNCTION refuse_lead();');
    }
    assert.equal(failed.status, 500);

    const all = lines();
    const api = all.filter((l) => l.name === 'api');
    const failure = api.find((l) => l.msg === 'request failed');
    assert.ok(failure, 'the failure is logged');
    assert.equal(failure.request_id, failed.body.error.request_id);
    assert.match(failure.error as string, /refused lead \[redacted\]/);
    assert.ok(api.length >= 6, `a line per request at debug (${api.length})`);
    for (const l of api) assert.match(String(l.request_id), /^req_[0-9a-f]{32}$/, JSON.stringify(l));
    assert.ok(
      all.some((l) => l.name === 'temporal' && String(l.workflowId).startsWith('webhook-delivery:')),
      "the SDK's lines about the delivery carry its workflow id",
    );

    assertNoneIn('a log line', raw, {
      ...credentialsOf(
        { 'the created key': created.key, "the workspace's first key": w.key.key, 'the wrong key': wrongKey },
        endpoint.secret,
      ),
      ...detailsOf(contact),
      'the failing email': failing.email,
      'the failing phone': failing.phone,
      "the member's email": w.email,
    });
  });
});
