import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { createMaintenanceActivities } from '../../activities/maintenance';
import { DomainError } from '../../domain/kernel/errors';
import { resendDelivery } from '../../domain/webhooks/operations/delivery-resend';
import { createEndpoint } from '../../domain/webhooks/operations/endpoint-create';
import { rotateEndpointSecret } from '../../domain/webhooks/operations/endpoint-rotate-secret';
import { setEndpointScheme } from '../../domain/webhooks/operations/endpoint-set-scheme';
import { encryptSecret } from '../../domain/webhooks/secrets';
import { createLogger } from '../../infra/logger';
import { repoRoot } from '../../tooling/paths';
import { waitFor } from '../../tooling/processes';
import { ensurePythonTool, type PythonTool } from '../../tooling/python-tools';
import { intakeBody, postLead } from '../helpers/leads';
import { startReceiver, type Answer, type Received, type Receiver } from '../helpers/receiver';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

/** The libraries receivers verify with, pinned: Standard Webhooks' and Stripe's, in Python. */
const PYTHON_LIBS: PythonTool = {
  name: 'webhook-verifiers',
  packages: ['standardwebhooks==1.1.0', 'stripe==16.1.0'],
};
const SCRIPT = path.join(repoRoot(), 'test', 'python', 'webhook_verify_check.py');

const stripe = new Stripe('sk_test_never_used_offline');

/** What each library says of one delivery, held by a receiver that knows `secret`. */
type Verdict = { standard: boolean; stripe: boolean };

/** The Node libraries: `standardwebhooks` on the webhook-* headers, Stripe's SDK on service-signature. */
function verifyInNode(r: Received, secret: string): Verdict {
  const headers = Object.fromEntries(
    Object.entries(r.headers).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  const accepts = (check: () => unknown) => {
    try {
      check();
      return true;
    } catch {
      return false;
    }
  };
  return {
    standard: accepts(() => new Webhook(secret).verify(r.body, headers)),
    stripe: accepts(() => stripe.webhooks.constructEvent(r.body, headers['service-signature'] ?? '', secret)),
  };
}

/** Every delivery a test checked in Node, checked again by the Python libraries at the end. */
const checked: { received: Received; secret: string; node: Verdict }[] = [];
function verify(r: Received, secret: string): Verdict {
  const node = verifyInNode(r, secret);
  checked.push({ received: r, secret, node });
  return node;
}

describe('signing schemes: service, Standard Webhooks, both; rotation with an overlap', () => {
  let s: WebhookStack;
  let python: string;
  const receivers: Receiver[] = [];
  const receiver = async (answer?: (r: Received) => Answer) => {
    const r = await startReceiver(answer);
    receivers.push(r);
    return r;
  };
  /** An endpoint for the receiver (whose own helper then checks service-signature with its secret). */
  const endpoint = async (rx: Receiver, scheme?: string) => {
    const e = await s.run(
      createEndpoint,
      { url: rx.url, events: ['lead.created'], scheme },
      { workspaceId: s.workspace.id },
    );
    rx.setSecret(e.secret);
    return e;
  };
  /** A new lead, and its lead.created as the receiver got it. */
  const nextDelivery = async (rx: Receiver) => {
    const before = rx.received.length;
    await postLead(s.app, s.key, intakeBody());
    return waitFor('the delivery', async () => rx.received[before], 15_000, 20);
  };

  before(async () => {
    // Blocks while pip installs (once), before anything else is started.
    python = ensurePythonTool(PYTHON_LIBS, createLogger('webhook-verifiers', 'info'));
    s = await startWebhookStack();
  });
  after(async () => {
    await s.stop();
    for (const r of receivers) await r.close();
  });

  it('issues secrets as whsec_ and padded standard base64 of 32 bytes', async () => {
    const e = await endpoint(await receiver());
    assert.match(e.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(e.secret.slice(6), 'base64').length, 32);
    assert.equal(e.signing_scheme, 'service', 'service is the default');
  });

  it('service: Stripe verifies service-signature, and no Standard Webhooks headers are sent', async () => {
    const rx = await receiver();
    const e = await endpoint(rx, 'service');
    const r = await nextDelivery(rx);
    assert.deepEqual(verify(r, e.secret), { standard: false, stripe: true });
    assert.equal(r.headers['webhook-signature'], undefined);
    assert.equal(r.headers['webhook-id'], undefined);
  });

  it('standard: standardwebhooks verifies it; webhook-id is the event id; no service-signature', async () => {
    const rx = await receiver();
    const e = await endpoint(rx, 'standard');
    const r = await nextDelivery(rx);
    assert.deepEqual(verify(r, e.secret), { standard: true, stripe: false });
    assert.equal(r.headers['service-signature'], undefined);
    assert.equal(r.headers['webhook-id'], (JSON.parse(r.body) as { id: string }).id);
    assert.match(r.headers['webhook-signature'] as string, /^v1,[A-Za-z0-9+/]{43}=$/);
    assert.ok(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
  });

  it('both: one printed secret verifies in both libraries, on a retried attempt too, with the same webhook-id', async () => {
    let calls = 0;
    const rx = await receiver(() => ({ status: ++calls === 1 ? 503 : 204 }));
    const e = await endpoint(rx, 'both');
    const first = await nextDelivery(rx);
    // The ladder's first step is 30 s.
    const second = await waitFor('the retried attempt', async () => rx.received[1], 45_000, 100);
    for (const r of [first, second]) assert.deepEqual(verify(r, e.secret), { standard: true, stripe: true });
    assert.equal(second.headers['service-delivery-attempt'], '2');
    assert.equal(second.headers['webhook-id'], first.headers['webhook-id']);
    assert.ok(Number(second.headers['webhook-timestamp']) > Number(first.headers['webhook-timestamp']));
  });

  it('a manual resend keeps the webhook-id (the event id) and verifies', async () => {
    let fixed = false;
    const rx = await receiver(() => ({ status: fixed ? 200 : 400 }));
    const e = await endpoint(rx, 'standard');
    const first = await nextDelivery(rx);
    const [d] = await s.deliveries('endpoint_id = $1', [e.id]);
    await s.waitForDelivery('id = $1', [d!.id], (x) => x.status === 'EXHAUSTED');
    fixed = true;
    await s.run(resendDelivery, { id: d!.id });
    const again = await waitFor('the resent attempt', async () => rx.received[1], 15_000, 20);
    assert.equal(again.headers['webhook-id'], first.headers['webhook-id']);
    assert.deepEqual(verify(again, e.secret), { standard: true, stripe: false });
  });

  it('rotation with an overlap: both the old and the new secret verify every delivery until it ends, then only the new; then the old is destroyed', async () => {
    const rx = await receiver();
    const e = await endpoint(rx, 'both');
    const old = e.secret;
    const rotated = await s.run(rotateEndpointSecret, { id: e.id, overlap: '4s' });
    assert.notEqual(rotated.secret, old);
    const endsAt = Date.parse(rotated.previous_secret_expires_at!);
    const during = [await nextDelivery(rx), await nextDelivery(rx)];
    assert.ok(Date.now() < endsAt, 'delivered within the overlap');
    for (const r of during) {
      assert.deepEqual(verify(r, old), { standard: true, stripe: true }, 'a receiver with the old secret');
      assert.deepEqual(verify(r, rotated.secret), { standard: true, stripe: true }, 'one with the new');
      assert.equal((r.headers['webhook-signature'] as string).split(' ').length, 2);
      assert.equal((r.headers['service-signature'] as string).match(/v1=/g)!.length, 2);
    }
    await waitFor('the overlap to end', async () => Date.now() > endsAt + 1_000, 10_000, 100);
    const afterwards = await nextDelivery(rx);
    assert.deepEqual(verify(afterwards, old), { standard: false, stripe: false }, 'the old secret no more');
    assert.deepEqual(verify(afterwards, rotated.secret), { standard: true, stripe: true });
    assert.equal((afterwards.headers['webhook-signature'] as string).split(' ').length, 1);

    // The reconciler destroys it, and says so in the audit log.
    const report = await maintenance(s).reconcileDeliveries();
    assert.ok(report.secrets_destroyed >= 1);
    const [row] = await s.db.query<{ previous_secret_ciphertext: Buffer | null; at: Date | null }[]>(
      'SELECT previous_secret_ciphertext, previous_secret_expires_at AS at FROM webhook_endpoints WHERE id = $1',
      [e.id],
    );
    assert.deepEqual(row, { previous_secret_ciphertext: null, at: null });
    const audited = await s.db.query(
      `SELECT 1 FROM audit_log WHERE action = 'endpoint.retire_secret' AND details->>'endpoint_id' = $1`,
      [e.id],
    );
    assert.equal(audited.length, 1);
  });

  it("switching to standard needs a secret in Standard Webhooks' form: an older one is refused, naming the field, and a rotation switches", async () => {
    const rx = await receiver();
    const e = await endpoint(rx, 'service');
    // A secret as issued before Standard Webhooks: base64url without padding.
    const legacy = 'whsec_' + Buffer.alloc(32, 0xfb).toString('base64url');
    await s.db.query('UPDATE webhook_endpoints SET secret_ciphertext = $2 WHERE id = $1', [
      e.id,
      encryptSecret(legacy, s.config.secretsKey),
    ]);
    await assert.rejects(s.run(setEndpointScheme, { id: e.id, scheme: 'standard' }), (err: Error) => {
      assert.equal(fieldOf(err), 'scheme');
      assert.match(err.message, /rotate-secret --scheme standard/);
      return true;
    });
    const [kept] = await s.db.query<{ signing_scheme: string }[]>(
      'SELECT signing_scheme FROM webhook_endpoints WHERE id = $1',
      [e.id],
    );
    assert.equal(kept!.signing_scheme, 'service', 'nothing changed');
    // The old secret still signs service during the overlap; the new one signs both schemes.
    const rotated = await s.run(rotateEndpointSecret, { id: e.id, scheme: 'both', overlap: '1h' });
    assert.equal(rotated.signing_scheme, 'both');
    const r = await nextDelivery(rx);
    assert.deepEqual(verify(r, legacy), { standard: false, stripe: true });
    assert.deepEqual(verify(r, rotated.secret), { standard: true, stripe: true });
    // A secret in the form switches without a rotation.
    const switched = await s.run(setEndpointScheme, { id: e.id, scheme: 'standard' });
    assert.equal(switched.signing_scheme, 'standard');
  });

  it('refuses a bad overlap or scheme with an error naming the field, and changes nothing', async () => {
    const e = await endpoint(await receiver());
    const stored = () =>
      s.db.query<{ secret_ciphertext: Buffer; signing_scheme: string }[]>(
        'SELECT secret_ciphertext, signing_scheme FROM webhook_endpoints WHERE id = $1',
        [e.id],
      );
    const before = await stored();
    for (const overlap of ['8d', '24', '-1h', '1w', '1.5h']) {
      await assert.rejects(s.run(rotateEndpointSecret, { id: e.id, overlap }), (err: Error) => {
        assert.equal(fieldOf(err), 'overlap', overlap);
        return true;
      });
    }
    await assert.rejects(s.run(setEndpointScheme, { id: e.id, scheme: 'svix' }), (err: Error) => {
      assert.equal(fieldOf(err), 'scheme');
      return true;
    });
    assert.deepEqual(await stored(), before);
  });

  it('the Python libraries (standardwebhooks, stripe) agree with the Node ones on every delivery above', () => {
    assert.ok(checked.length >= 10, `${checked.length} deliveries checked`);
    const input = checked.map((c) => ({
      body: c.received.body,
      headers: Object.fromEntries(
        Object.entries(c.received.headers).filter((e): e is [string, string] => typeof e[1] === 'string'),
      ),
      secret: c.secret,
    }));
    const run = spawnSync(python, [SCRIPT], { input: JSON.stringify(input), encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const verdicts = JSON.parse(run.stdout) as (Verdict & Record<string, unknown>)[];
    verdicts.forEach((v, i) =>
      assert.deepEqual({ standard: v.standard, stripe: v.stripe }, checked[i]!.node, JSON.stringify(v)),
    );
  });
});

/** The reconciler's activity for one pass now; every workflow it asks about is alive. */
const maintenance = (s: WebhookStack) =>
  createMaintenanceActivities({
    db: s.db,
    startDelivery: async () => undefined,
    startApproval: async () => undefined,
    workflowStatus: async () => 'RUNNING',
    retention: { idempotencyHours: 24, auditDays: 30, eventDays: 10 },
  });

/** The field a refusal names. */
const fieldOf = (err: unknown) => (err instanceof DomainError ? err.details.field : undefined);
