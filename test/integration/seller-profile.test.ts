import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { parseArgv } from '../../admin/args';
import { setSellerProfile } from '../../domain/identity/operations/workspace-set-seller-profile';
import type { Services } from '../../domain/kernel/operation';
import { documentOf, sha256 } from '../../domain/sales/documents';
import type { Quote } from '../../domain/sales/entities';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, refusal, workspaceWithKey } from '../helpers/fixtures';
import { draftQuote, leadIn, send } from '../helpers/sales';
import { testServices } from '../../tooling/services';

type Row = Record<string, unknown>;

/**
 * The seller profile (`workspace profile`): what each setting accepts, that a setting not given keeps
 * its value, that bad input is refused naming its field and changing nothing, and what the quote page
 * shows of it and of the customer.
 */
describe('the seller profile on quote pages', () => {
  let t: TestDatabase;
  let services: Services;
  let app: ReturnType<typeof testApp>;

  before(async () => {
    t = await freshDatabase();
    services = testServices(t.db);
    app = testApp(t.db, { config: { quotePagePerMinute: 1_000, publicUrl: 'https://leads.example.com' } });
  });
  after(() => t.drop());

  const workspace = async () => (await workspaceWithKey(t.db)).workspace.id;
  const set = (workspaceId: string, input: Record<string, unknown>) =>
    asOperator(services, setSellerProfile, input, { workspaceId });
  const stored = async (workspaceId: string) =>
    (
      await t.db.query<Row[]>(
        `SELECT seller_name, seller_address, seller_email, seller_phone, seller_terms_url, seller_terms_text
           FROM workspaces WHERE id = $1`,
        [workspaceId],
      )
    )[0]!;

  it('stores each setting tidied, keeps what is not given, clears what is given empty, and audits the profile', async () => {
    const ws = await workspace();
    const first = await set(ws, {
      name: '  Atelier Lumière SARL ',
      address: '12 rue des Lilas  \r\n\r\n 75011 Paris\nFrance',
      email: 'devis@atelier-lumiere.example',
      phone: '+33 1 23 45 67 89',
      terms_url: 'https://atelier-lumiere.example/terms',
    });
    assert.deepEqual(first, {
      name: 'Atelier Lumière SARL',
      address: '12 rue des Lilas\n75011 Paris\nFrance',
      email: 'devis@atelier-lumiere.example',
      phone: '+33 1 23 45 67 89',
      terms_url: 'https://atelier-lumiere.example/terms',
      terms_text: null,
    });
    assert.equal((await stored(ws)).seller_address, '12 rue des Lilas\n75011 Paris\nFrance');

    // Terms are a link or a text: giving the text drops the link. The rest is kept; '' clears the phone.
    const second = await set(ws, {
      terms_text: 'Payment within 30 days.\n\n\n\nPrices in euros.',
      phone: '',
    });
    assert.deepEqual(second, {
      ...first,
      phone: null,
      terms_url: null,
      terms_text: 'Payment within 30 days.\n\nPrices in euros.',
    });
    assert.deepEqual(await stored(ws), {
      seller_name: 'Atelier Lumière SARL',
      seller_address: '12 rue des Lilas\n75011 Paris\nFrance',
      seller_email: 'devis@atelier-lumiere.example',
      seller_phone: null,
      seller_terms_url: null,
      seller_terms_text: 'Payment within 30 days.\n\nPrices in euros.',
    });
    const [audit] = await t.db.query<{ action: string; details: Row }[]>(
      `SELECT action, details FROM audit_log WHERE workspace_id = $1 AND action = 'workspace.set_seller_profile'
        ORDER BY id DESC LIMIT 1`,
      [ws],
    );
    assert.equal(audit!.details.terms_text, 'Payment within 30 days.\n\nPrices in euros.');
  });

  it('refuses bad input naming the field, and changes nothing', async () => {
    const ws = await workspace();
    await set(ws, { name: 'Kept SARL' });
    const before = await stored(ws);
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ name: 'x'.repeat(201) }, 'name', /name can be at most 200 characters/],
      [{ name: 'Two\nlines' }, 'name', /name must be one line/],
      [
        { address: Array.from({ length: 9 }, (_, i) => `Line ${i}`).join('\n') },
        'address',
        /at most 8 lines/,
      ],
      [{ email: 'not an email' }, 'email', /email must be an email address/],
      [{ phone: 'call me' }, 'phone', /phone must be a phone number/],
      [{ terms_url: 'http://plain.example/terms' }, 'terms_url', /terms_url must be an https:\/\/ link/],
      [{ terms_url: 'javascript:alert(1)' }, 'terms_url', /terms_url must be an https:\/\/ link/],
      [{ terms_text: 'Bell \u0007 here' }, 'terms_text', /terms_text must be text/],
      [{ terms_text: 'x'.repeat(5_001) }, 'terms_text', /at most 5000 characters/],
      [
        { terms_url: 'https://a.example/terms', terms_text: 'Also these.' },
        'terms_text',
        /terms_url or terms_text, not both/,
      ],
      [{ website: 'https://a.example' }, 'website', /website is not a field/],
    ];
    for (const [input, field, message] of cases) {
      const err = await refusal(set(ws, input));
      assert.equal(err.code, 'invalid_request', JSON.stringify(input));
      assert.equal(err.details.field, field, err.message);
      assert.match(err.message, message);
    }
    assert.deepEqual(await stored(ws), before);
  });

  it('is the admin command `workspace profile`, where \\n in a flag breaks a line', () => {
    const parsed = parseArgv([
      'workspace',
      'profile',
      '--workspace',
      'w',
      '--address',
      '1 Main St\\nSpringfield',
      '--terms-url',
      'https://a.example/terms',
    ]);
    assert.ok('command' in parsed);
    assert.deepEqual(parsed.command.binding.flags!(parsed.flags), {
      name: undefined,
      address: '1 Main St\nSpringfield',
      email: undefined,
      phone: undefined,
      terms_url: 'https://a.example/terms',
      terms_text: undefined,
    });
  });

  it("the page shows the seller's details and terms and the customer, escaped; without a profile, the workspace's name", async () => {
    const ws = await workspace();
    await set(ws, {
      name: 'Ateliers <Lumière> & Fils',
      address: '12 rue des Lilas\n75011 Paris',
      email: 'devis@atelier-lumiere.example',
      phone: '+33 1 23 45 67 89',
      terms_text: 'Payment within 30 days.',
    });
    const lead = await leadIn(services, ws, {
      first_name: 'Ana',
      last_name: 'Lima',
      answers: { company: 'Lima <Consulting>' },
    });
    const { path } = await send(services, (await draftQuote(services, ws, lead.id)).id);
    const res = await request(app).get(path);
    assert.equal(res.status, 200);
    assert.match(res.text, /<p class="seller">Ateliers &lt;Lumière&gt; &amp; Fils<\/p>/);
    assert.match(res.text, /<p class="address">12 rue des Lilas\n75011 Paris<\/p>/);
    assert.match(res.text, /href="mailto:devis@atelier-lumiere\.example"/);
    assert.match(res.text, /href="tel:\+33123456789">\+33 1 23 45 67 89</);
    assert.match(res.text, /<p class="name">Ana Lima<\/p><p class="company">Lima &lt;Consulting&gt;<\/p>/);
    assert.match(res.text, /<div class="terms-text">Payment within 30 days\.<\/div>/);
    assert.match(res.text, /<dt>Issued<\/dt><dd>\d{4}-\d{2}-\d{2}<\/dd>/);
    assert.match(res.text, /<dt>Document SHA-256<\/dt><dd><code>[0-9a-f]{64}<\/code>/);
    assert.doesNotMatch(res.text, /Lumière>|<Consulting>/, 'nothing unescaped');

    const bare = await workspace();
    const other = await leadIn(services, bare);
    const plain = await request(app).get(
      (await send(services, (await draftQuote(services, bare, other.id)).id)).path,
    );
    assert.match(plain.text, /<p class="seller">Workspace \d+<\/p>/);
    assert.doesNotMatch(plain.text, /class="terms"|class="address"|mailto:/);
  });

  it('a sent quote keeps the seller and terms it was sent with, inside its document hash; later quotes get the new ones', async () => {
    const ws = await workspace();
    await set(ws, { name: 'Atelier Nord', terms_text: 'Payment within 30 days.' });
    const lead = await leadIn(services, ws);
    const first = await send(services, (await draftQuote(services, ws, lead.id)).id);
    const hashOf = (html: string) =>
      /<dt>Document SHA-256<\/dt><dd><code>([0-9a-f]{64})<\/code>/.exec(html)?.[1];
    const before = await request(app).get(first.path);
    await set(ws, { name: 'Atelier Sud', terms_text: 'Payment on receipt; no refunds.' });

    const after = await request(app).get(first.path);
    assert.match(after.text, /Atelier Nord/);
    assert.match(after.text, /Payment within 30 days\./);
    assert.doesNotMatch(after.text, /Atelier Sud|no refunds/, 'what the customer signs does not move');
    assert.equal(hashOf(after.text), hashOf(before.text));

    const second = await send(services, (await draftQuote(services, ws, lead.id)).id);
    const page = await request(app).get(second.path);
    assert.match(page.text, /Atelier Sud/);
    assert.match(page.text, /no refunds/);
    // The stored hash is the document with its seller; other terms would be another hash.
    const [sent] = await t.db.query<Quote[]>(
      `SELECT * FROM quotes WHERE sent_at IS NOT NULL AND workspace_id = $1 ORDER BY sent_at LIMIT 1`,
      [ws],
    );
    assert.equal(sha256(documentOf(sent!)), sent!.document_sha256);
    assert.notEqual(
      sha256(documentOf({ ...sent!, seller: { ...sent!.seller!, terms_text: 'Payment on receipt.' } })),
      sent!.document_sha256,
      'the terms are in the hash',
    );
  });
});
