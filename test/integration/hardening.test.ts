import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createApiKey } from '../../domain/identity/operations/key-create';
import { createEndpoint } from '../../domain/webhooks/operations/endpoint-create';
import { noCanceller } from '../../tooling/services';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, bearer, workspaceWithKey } from '../helpers/fixtures';
import { intakeBody, postLead } from '../helpers/leads';
import { testServices } from '../../tooling/services';

/** Regression tests for the security review's smaller items. */
describe('hardening: suspended workspaces and what GET /events shows', () => {
  let t: TestDatabase;
  let app: ReturnType<typeof testApp>;
  before(async () => {
    t = await freshDatabase();
    app = testApp(t.db);
  });
  after(() => t.drop());

  it("refuses a suspended workspace's keys, with the same 401 as every other refusal", async () => {
    const w = await workspaceWithKey(t.db);
    await request(app).get('/api/v1/me').set(bearer(w.key.key)).expect(200);
    await t.db.query(`UPDATE workspaces SET status = 'suspended' WHERE id = $1`, [w.workspace.id]);
    const refused = await request(app).get('/api/v1/me').set(bearer(w.key.key)).expect(401);
    assert.equal(refused.body.error.code, 'unauthorized');
    const [row] = await t.db.query<{ reason: string }[]>(
      'SELECT reason FROM audit_log WHERE key_id = $1 ORDER BY id DESC LIMIT 1',
      [w.key.id],
    );
    assert.equal(row!.reason, 'workspace suspended');
  });

  it('leaves lead contact details out of payloads for a key without leads:read, and says so', async () => {
    const w = await workspaceWithKey(t.db, { scopes: ['leads:write', 'leads:read', 'business:read'] });
    const workspaceId = w.workspace.id;
    await asOperator(
      testServices(t.db, {
        webhooks: {
          secretsKey: Buffer.alloc(32, 3),
          allowPrivateTargets: true,
          cancelWorkflows: noCanceller,
        },
      }),
      createEndpoint,
      { url: 'http://127.0.0.1:9/hooks', events: ['lead.created'] },
      { workspaceId },
    );
    const lead = await postLead(app, w.key.key, intakeBody({ first_name: 'Ana', postcode: 'N1 9GU' }));
    assert.equal(lead.status, 201);
    const businessOnly = await asOperator(
      t.db,
      createApiKey,
      { ownerEmail: w.email, name: 'dashboard', scopes: ['business:read'] },
      { workspaceId },
    );
    const event = async (key: string) =>
      (
        (await request(app).get('/api/v1/events?type=lead.created').set(bearer(key)).expect(200)).body
          .data as {
          payload: { id: string; type: string; data: Record<string, unknown> };
          payload_redacted?: boolean;
        }[]
      )[0]!;
    const full = await event(w.key.key);
    assert.equal(full.payload.data.email, lead.body.data.email);
    assert.equal(full.payload_redacted, undefined);
    const redacted = await event(businessOnly.key);
    assert.equal(redacted.payload_redacted, true);
    assert.equal(redacted.payload.id, full.payload.id, 'ids, types and times stay');
    assert.equal(redacted.payload.data.lead_id, lead.body.data.id);
    for (const field of ['first_name', 'last_name', 'email', 'phone', 'postcode'])
      assert.equal(field in redacted.payload.data, false, field);
  });
});
