import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { writeDevStack } from '../../tooling/dev-stack';
import { waitFor } from '../../tooling/processes';
import { startSmtpSink } from '../../tooling/smtp-sink';
import { runAdmin } from '../helpers/admin';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { eventsFor } from '../helpers/leads';
import { draftQuote, leadIn, quoteLink } from '../helpers/sales';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';
import { testServices } from '../../tooling/services';

/** A variable set to undefined is left out of the CLI's environment, whatever the test's own holds. */
const unset = { PUBLIC_URL: undefined, PORT: undefined };

describe('admin CLI (npm run -s admin -- ...)', () => {
  let t: TestDatabase;
  before(async () => {
    t = await freshDatabase();
  });
  after(() => t.drop());

  /**
   * The CLI's entry under tsx; the first call goes through `npm run -s admin`, as docs/admin-cli.md says. It
   * talks to the run's Temporal on a task queue of its own that no worker polls (a command that cancels
   * a workflow gets its answer at once, where an unreachable server costs the SDK's 10 s connect).
   */
  let via: 'npm' | undefined = 'npm';
  const queue = `admin-cli-${randomUUID().slice(0, 8)}`;
  const admin = (...args: string[]) => {
    const r = runAdmin(
      {
        DATABASE_URL: t.url,
        TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
        TEMPORAL_TASK_QUEUE: queue,
        PUBLIC_URL: 'http://quotes.test',
      },
      args,
      { via },
    );
    via = undefined;
    return {
      code: r.code,
      json: r.code === 0 ? (JSON.parse(r.stdout) as Record<string, unknown>) : undefined,
      stderr: r.stderr,
    };
  };

  it('runs the operator contract: workspace, member, key, message inbound and audit, JSON on stdout', async () => {
    const ws = admin(
      'workspace',
      'create',
      '--name',
      'Acme',
      '--timezone',
      'Europe/London',
      '--industry',
      'solar',
    );
    assert.equal(ws.code, 0, ws.stderr);
    const workspaceId = ws.json!.id as string;
    const member = admin(
      'member',
      'add',
      '--workspace',
      workspaceId,
      '--email',
      'Ana@Acme.example',
      '--role',
      'member',
    );
    assert.equal(member.json!.email, 'ana@acme.example');
    assert.ok(member.json!.user_id);
    const key = admin(
      'key',
      'create',
      '--workspace',
      workspaceId,
      '--owner',
      'ana@acme.example',
      '--name',
      'crm',
      '--scopes',
      'leads:read,business:read',
      '--allow-ip',
      '10.0.0.0/8',
    );
    assert.equal(key.code, 0, key.stderr);
    assert.match(key.json!.key as string, /^lk_live_/);
    assert.deepEqual(key.json!.allowed_cidrs, ['10.0.0.0/8']);
    const listed = admin('key', 'list', '--workspace', workspaceId);
    assert.ok(!JSON.stringify(listed.json).includes(key.json!.key as string), 'key list never shows the key');
    const role = admin(
      'member',
      'set-role',
      '--workspace',
      workspaceId,
      '--email',
      'ana@acme.example',
      '--role',
      'viewer',
    );
    assert.equal(role.json!.role, 'viewer');

    const [lead] = await t.db.query<{ id: string }[]>(
      `INSERT INTO leads (workspace_id, first_name, email) VALUES ($1, 'Bo', 'bo@example.com') RETURNING id`,
      [workspaceId],
    );
    const msg = admin(
      'message',
      'inbound',
      '--lead',
      lead!.id,
      '--channel',
      'email',
      '--body',
      'Can you call me?',
    );
    assert.equal(msg.code, 0, msg.stderr);
    assert.equal(msg.json!.direction, 'inbound');
    const types = (await eventsFor(t.db, lead!.id)).map((e) => e.type);
    assert.deepEqual(types, ['message.received', 'lead.intent_changed', 'reply.received']);

    const revoked = admin('key', 'revoke', '--id', key.json!.id as string);
    assert.ok(revoked.json!.revoked_at);
    const audit = admin('audit', 'list', '--workspace', workspaceId, '--limit', '3');
    const rows = audit.json as unknown as { action: string; door: string }[];
    assert.equal(rows.length, 3);
    assert.deepEqual(
      rows.map((r) => r.action),
      ['key.revoke', 'message.inbound', 'member.set_role'],
    );
  });

  it('manages signing from the shell: a Standard Webhooks endpoint, a rotation with an overlap and a scheme, refusals in one line', () => {
    const workspaceId = admin('workspace', 'create', '--name', 'Hooks', '--timezone', 'Europe/Paris').json!
      .id as string;
    const shell = (...args: string[]) => {
      const r = runAdmin(
        {
          DATABASE_URL: t.url,
          TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
          TEMPORAL_TASK_QUEUE: queue,
          WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        },
        args,
      );
      return { ...r, json: r.code === 0 ? (JSON.parse(r.stdout) as Record<string, unknown>) : undefined };
    };
    const created = shell(
      'endpoint',
      'create',
      '--workspace',
      workspaceId,
      '--url',
      'http://127.0.0.1:9/hooks',
      '--events',
      'lead.created',
      '--scheme',
      'standard',
    ).json!;
    assert.equal(created.signing_scheme, 'standard');
    assert.match(created.secret as string, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const before = Date.now();
    const rotated = shell(
      'endpoint',
      'rotate-secret',
      '--id',
      created.id as string,
      '--overlap',
      '24h',
      '--scheme',
      'both',
    ).json!;
    assert.equal(rotated.signing_scheme, 'both');
    assert.notEqual(rotated.secret, created.secret);
    const endsIn = Date.parse(rotated.previous_secret_expires_at as string) - before;
    assert.ok(endsIn > 23.9 * 3_600_000 && endsIn < 24.1 * 3_600_000, `overlap ends in ${endsIn} ms`);
    const listed = shell('endpoint', 'list', '--workspace', workspaceId).json as unknown as Record<
      string,
      unknown
    >[];
    assert.ok(
      listed.every((e) => e.secret === undefined),
      'never a secret in a listing',
    );
    const bad = shell('endpoint', 'rotate-secret', '--id', created.id as string, '--overlap', '30d');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /overlap must be 0 or a duration/);
    assert.equal(bad.stderr.split('\n').length, 1, bad.stderr);
    const scheme = shell('endpoint', 'set-scheme', '--id', created.id as string, '--scheme', 'service');
    assert.equal(scheme.json!.signing_scheme, 'service');
  });

  it('reports errors as one line on stderr with exit code 1', () => {
    for (const args of [
      ['member', 'add', '--workspace', 'nope', '--email', 'x@y.z', '--role', 'member'],
      [
        'key',
        'create',
        '--workspace',
        '00000000-0000-4000-8000-000000000000',
        '--owner',
        'x@y.z',
        '--name',
        'n',
        '--scopes',
        'all',
      ],
      ['frobnicate', 'now'],
      ['delivery', 'list'],
    ]) {
      const r = admin(...args);
      assert.equal(r.code, 1, args.join(' '));
      assert.equal(r.stderr.split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /^error/);
    }
  });

  it('imports prospects from a CSV file, and runs agents and their drafts from the shell', async () => {
    const ws = admin(
      'workspace',
      'create',
      '--name',
      'Prospector',
      '--timezone',
      'Europe/London',
      '--industry',
      'solar',
    );
    const workspaceId = ws.json!.id as string;
    const dir = mkdtempSync(path.join(tmpdir(), 'cli-'));
    const csv = path.join(dir, 'list.csv');
    writeFileSync(csv, 'email,first_name,company\nana@sun.example,Ana,Sun Ltd\nnope,Bo,\n');
    const imported = admin(
      'prospect',
      'import',
      '--workspace',
      workspaceId,
      '--file',
      csv,
      '--list',
      'Solar Q4',
    );
    assert.equal(imported.code, 0, imported.stderr);
    assert.deepEqual(
      [imported.json!.imported, imported.json!.bad_rows, imported.json!.bad],
      [1, 1, [{ line: 3, field: 'email', reason: 'email is not an email address' }]],
    );
    const wrong = path.join(dir, 'wrong.csv');
    writeFileSync(wrong, 'mail,name\nx@y.example,X\n');
    const refused = admin(
      'prospect',
      'import',
      '--workspace',
      workspaceId,
      '--file',
      wrong,
      '--list',
      'Solar Q4',
    );
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^error \(file\): the file's header has an unknown column "mail"/);
    assert.equal(refused.stderr.split('\n').length, 1, 'one line');
    const listed = admin('prospect', 'list', '--workspace', workspaceId, '--list', 'Solar Q4');
    assert.equal((listed.json!.data as unknown[]).length, 1);

    const agent = admin(
      'agent',
      'create',
      '--workspace',
      workspaceId,
      '--name',
      'Chaser',
      '--type',
      'follow_up',
    );
    assert.equal(agent.json!.status, 'DRAFT');
    const configured = admin(
      'agent',
      'configure',
      '--id',
      agent.json!.id as string,
      '--days',
      '1,2,3,4,5',
      '--time',
      '09:00',
      '--statuses',
      'NEW,CONTACTED',
      '--per-run',
      '10',
      '--review',
      'draft',
    );
    assert.equal(configured.code, 0, configured.stderr);
    assert.deepEqual(configured.json!.cadence, { days: [1, 2, 3, 4, 5], time: '09:00' });
    assert.equal((configured.json!.limits as { per_run: number }).per_run, 10);
    const zero = admin('agent', 'configure', '--id', agent.json!.id as string, '--per-day', '0');
    assert.match(zero.stderr, /^error \(limits\.per_day\): limits\.per_day must be at least 1/);

    const [lead] = await t.db.query<{ id: string }[]>(
      `INSERT INTO leads (workspace_id, first_name, email, source) VALUES ($1, 'Ana', 'lead@sun.example', 'ads') RETURNING id`,
      [workspaceId],
    );
    const [run] = await t.db.query<{ id: string }[]>(
      `INSERT INTO agent_runs (workspace_id, agent_id, workflow_id, trigger) VALUES ($1, $2, 'agent:x-now', 'run_now') RETURNING id`,
      [workspaceId, agent.json!.id],
    );
    const draft = async () =>
      (
        await t.db.query<{ id: string }[]>(
          `INSERT INTO agent_drafts (workspace_id, agent_id, run_id, lead_id, channel, subject, body, template)
           VALUES ($1, $2, $3, $4, 'email', 'Following up', 'Hi Ana', 'follow_up.first@v1') RETURNING id`,
          [workspaceId, agent.json!.id, run!.id, lead!.id],
        )
      )[0]!.id;
    const [first, second] = [await draft(), await draft()];
    const drafts = admin('agent', 'drafts', '--workspace', workspaceId);
    assert.equal(drafts.json!.count, 2);
    const sent = admin('agent', 'send-draft', '--id', first, '--as', 'owner@sun.example');
    assert.equal(sent.json!.status, 'SENT', sent.stderr);
    const [message] = await t.db.query(`SELECT status, subject FROM messages WHERE id = $1`, [
      sent.json!.message_id,
    ]);
    assert.deepEqual({ ...message }, { status: 'queued', subject: 'Following up' });
    assert.equal(admin('agent', 'discard-draft', '--id', second).json!.status, 'DISCARDED');
    const again = admin('agent', 'send-draft', '--id', second);
    assert.match(again.stderr, /^error: The draft was already discarded/);

    const summary = admin('analytics', 'summary', '--workspace', workspaceId);
    assert.equal(summary.code, 0, summary.stderr);
    assert.equal((summary.json!.leads as { total: number }).total, 1);
  });

  it('runs the sales back half: quote create, revise and send, invoice issue and pay, with refusals', async () => {
    const workspaceId = admin('workspace', 'create', '--name', 'Seller', '--timezone', 'Europe/Paris').json!
      .id as string;
    const [lead] = await t.db.query<{ id: string }[]>(
      `INSERT INTO leads (workspace_id, first_name, email) VALUES ($1, 'Ana', 'ana@buyer.example') RETURNING id`,
      [workspaceId],
    );
    const validUntil = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
    const lines = (amount: number) =>
      JSON.stringify([
        { description: 'Setup', quantity: 1, unit_amount: amount },
        { description: 'Seats', quantity: 10, unit_amount: 1_500 },
      ]);
    const quoteArgs = (linesJson: string) => [
      '--workspace',
      workspaceId,
      '--lead',
      lead!.id,
      '--currency',
      'eur',
      '--lines',
      linesJson,
      '--valid-until',
      validUntil,
    ];
    const rows = async () => JSON.stringify(await t.db.query(`SELECT * FROM quotes ORDER BY revision`, []));

    const before = await rows();
    const empty = admin('quote', 'create', ...quoteArgs('[]'));
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /^error \(lines\): /);
    const negative = admin('quote', 'create', ...quoteArgs(lines(-50_000)));
    assert.match(negative.stderr, /^error \(lines\): .*total/);
    assert.equal(await rows(), before, 'the refusals wrote nothing');

    const draft = admin('quote', 'create', ...quoteArgs(lines(20_000)));
    assert.equal(draft.code, 0, draft.stderr);
    assert.deepEqual(
      [draft.json!.status, draft.json!.number, draft.json!.total, draft.json!.currency],
      ['DRAFT', null, 35_000, 'EUR'],
    );
    const sent = admin('quote', 'send', '--quote', draft.json!.id as string);
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(sent.stderr, '');
    const first = sent.json!.quote as { id: string; number: string; status: string };
    assert.deepEqual([first.status, first.number], ['SENT', 'Q-000001']);
    // The link is made when the email leaves: the operator's answer names the email, not the page.
    assert.deepEqual(Object.keys(sent.json!).sort(), ['message_id', 'quote']);
    assert.doesNotMatch(JSON.stringify(sent.json), /\/quotes\//);
    const [mail] = await t.db.query<{ subject: string; status: string }[]>(
      `SELECT subject, status FROM messages WHERE lead_id = $1 AND direction = 'outbound'`,
      [lead!.id],
    );
    assert.match(mail!.subject, /Q-000001/);

    const revised = admin('quote', 'revise', '--quote', first.id, '--lines', lines(10_000));
    assert.equal(revised.code, 0, revised.stderr);
    assert.deepEqual([revised.json!.revision, revised.json!.status], [2, 'DRAFT']);
    const resent = admin('quote', 'send', '--quote', revised.json!.id as string);
    const second = resent.json!.quote as { id: string; number: string; revision: number };
    assert.deepEqual([second.number, second.revision], ['Q-000001', 2], 'a revision keeps its number');
    // (Each CLI call costs seconds: the other refusals are in test/integration/quotes.test.ts.)
    const [superseded] = await t.db.query<{ status: string }[]>(`SELECT status FROM quotes WHERE id = $1`, [
      first.id,
    ]);
    assert.equal(superseded!.status, 'SUPERSEDED');
    // The customer signs on the page, as a browser posts its form.
    const page = new URL(quoteLink(second.id)).pathname;
    await request(testApp(t.db))
      .post(`${page}/accept`)
      .type('form')
      .send({ name: 'Ana Buyer', consent: 'yes' })
      .expect(303);

    const issued = admin('invoice', 'issue', '--quote', second.id);
    assert.equal(issued.code, 0, issued.stderr);
    assert.deepEqual(
      [issued.json!.number, issued.json!.status, issued.json!.total],
      ['INV-000001', 'ISSUED', 25_000],
    );
    const paid = admin('invoice', 'pay', '--invoice', issued.json!.id as string);
    assert.equal(paid.code, 0, paid.stderr);
    assert.equal(paid.json!.status, 'PAID');
    const twice = admin('invoice', 'pay', '--invoice', issued.json!.id as string);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /^error \(invoice\): Invoice INV-000001 is already paid\.$/);
    const [opportunity] = await t.db.query<{ stage: string }[]>(
      `SELECT stage FROM opportunities WHERE lead_id = $1`,
      [lead!.id],
    );
    assert.equal(opportunity!.stage, 'WON');
    const types = (
      await t.db.query<{ type: string }[]>(`SELECT type FROM events WHERE workspace_id = $1 ORDER BY seq`, [
        workspaceId,
      ])
    ).map((e) => e.type);
    for (const type of [
      'quote.sent',
      'quote.accepted',
      'signature.completed',
      'invoice.issued',
      'invoice.paid',
    ])
      assert.ok(types.includes(type), type);
    assert.equal(types.filter((x) => x === 'invoice.paid').length, 1, 'paid once');
  });

  it('prints nothing on stderr without PUBLIC_URL (it builds no link), and a refusal as one line', async () => {
    // DATABASE_URL is given, so no stack file is read; nor is PUBLIC_URL.
    const guessing = (...args: string[]) =>
      runAdmin({ DATABASE_URL: t.url, TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS, ...unset }, args);
    const ws = guessing('workspace', 'create', '--name', 'Unlinked', '--timezone', 'Europe/Paris');
    assert.deepEqual([ws.code, ws.stderr], [0, '']);
    const workspaceId = (JSON.parse(ws.stdout) as { id: string }).id;
    const [lead] = await t.db.query<{ id: string }[]>(
      `INSERT INTO leads (workspace_id, first_name, email) VALUES ($1, 'Bo', 'bo@buyer.example') RETURNING id`,
      [workspaceId],
    );
    const validUntil = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
    const lines = JSON.stringify([{ description: 'Setup', quantity: 1, unit_amount: 9_000 }]);
    const draft = guessing(
      'quote',
      'create',
      '--workspace',
      workspaceId,
      '--lead',
      lead!.id,
      '--currency',
      'eur',
      '--lines',
      lines,
      '--valid-until',
      validUntil,
    );
    assert.deepEqual([draft.code, draft.stderr], [0, '']);
    const quoteId = (JSON.parse(draft.stdout) as { id: string }).id;

    const sent = guessing('quote', 'send', '--quote', quoteId);
    assert.deepEqual([sent.code, sent.stderr], [0, '']);
    // A refusal is still the one line that starts with "error".
    const again = guessing('quote', 'send', '--quote', quoteId);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^error \(quote\): /);
    assert.equal(again.stderr.split('\n').length, 1, again.stderr);
  });
});

describe('admin CLI beside `npm run dev` on a port of its own', () => {
  let s: WebhookStack;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let server: http.Server;
  let dataDir: string;
  let publicUrl: string;

  before(async () => {
    smtp = await startSmtpSink();
    // The port first: as in `npm run dev`, the worker makes links on the stack's public URL.
    server = http.createServer((req, res) => void s.app(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    publicUrl = `http://localhost:${port}`;
    s = await startWebhookStack({
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'sales@seller.example', PUBLIC_URL: publicUrl },
    });
    dataDir = mkdtempSync(path.join(tmpdir(), 'dev-stack-'));
    writeDevStack(dataDir, {
      pid: process.pid,
      apiUrl: `http://127.0.0.1:${port}/api/v1`,
      publicUrl,
      databaseUrl: s.t.url,
      temporalAddress: s.config.temporalAddress,
      temporalNamespace: s.config.temporalNamespace,
      temporalTaskQueue: s.config.temporalTaskQueue,
      children: {},
    });
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await s.stop();
    await smtp.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("quote send emails a link that opens the quote page on the stack's port", async () => {
    const lead = await leadIn(testServices(s.db), s.workspace.id);
    const quote = await draftQuote(testServices(s.db), s.workspace.id, lead.id);
    // Only the stack file says where the stack is, as beside `npm run dev` in a fresh shell.
    const sent = runAdmin(
      {
        DEV_DATA_DIR: dataDir,
        DATABASE_URL: undefined,
        TEMPORAL_ADDRESS: undefined,
        NODE_ENV: undefined,
        ...unset,
      },
      ['quote', 'send', '--quote', quote.id],
    );
    assert.deepEqual([sent.code, sent.stderr], [0, '']);

    const mail = await waitFor(
      `the quote mailed to ${lead.email}`,
      async () => smtp.received.find((r) => r.to.includes(lead.email!)),
      20_000,
      50,
    );
    const mailed = /https?:\/\/\S+\/quotes\/[A-Za-z0-9_-]+/.exec(mail.mail.text ?? '')?.[0];
    assert.ok(mailed?.startsWith(`${publicUrl}/quotes/`), mail.mail.text);
    const page = await fetch(mailed!);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await page.text(), /Q-000001/);
  });
});
