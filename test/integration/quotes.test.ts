import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import type { Services } from '../../domain/kernel/operation';
import { createLead } from '../../domain/leads/operations/create';
import { recordInboundMessage } from '../../domain/conversations/operations/message-inbound';
import { issueInvoice } from '../../domain/sales/operations/invoice-issue';
import { payInvoice } from '../../domain/sales/operations/invoice-pay';
import { closeOpportunityByHand } from '../../domain/sales/operations/opportunity-close';
import { createOpportunity } from '../../domain/sales/operations/opportunity-create';
import { expireQuote } from '../../domain/sales/operations/quote-expire';
import { createQuote } from '../../domain/sales/operations/quote-create';
import { reviseQuote } from '../../domain/sales/operations/quote-revise';
import { sendQuoteOp } from '../../domain/sales/operations/quote-send';
import { testApp } from '../helpers/api';
import { consent } from '../helpers/leads';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, refusal, workspaceWithKey } from '../helpers/fixtures';
import { LINES, LINES_TOTAL, draftQuote, leadIn, send } from '../helpers/sales';
import { randomUUID } from 'node:crypto';
import { testServices } from '../../tooling/services';

type Row = Record<string, unknown>;

/**
 * Opportunities, quotes and invoices through their operations and the quote's public page (over HTTP,
 * as a browser posts its forms): numbering, revisions, the signature's evidence, and every refusal the
 * issue names, each changing nothing.
 */
describe('opportunities, quotes on their public page, and invoices', () => {
  let t: TestDatabase;
  let services: Services;
  let app: ReturnType<typeof testApp>;
  let workspaceId: string;

  before(async () => {
    t = await freshDatabase();
    services = testServices(t.db);
    app = testApp(t.db, { config: { quotePagePerMinute: 1_000, publicUrl: 'https://leads.example.com' } });
    workspaceId = (await workspaceWithKey(t.db)).workspace.id;
  });
  after(() => t.drop());

  const events = (type: string, where = 'true', params: unknown[] = []) =>
    t.db.query<{ data: Row }[]>(`SELECT data FROM events WHERE type = $1 AND ${where} ORDER BY seq`, [
      type,
      ...params,
    ]);
  const quoteRow = async (id: string) =>
    (await t.db.query<Row[]>(`SELECT * FROM quotes WHERE id = $1`, [id]))[0]!;
  /** Every sales table and the outbox, to show a refusal changed nothing. */
  const snapshot = async () =>
    JSON.stringify(
      await Promise.all(
        [
          'opportunities',
          'quotes',
          'quote_signatures',
          'invoices',
          'document_counters',
          'events',
          'messages',
        ].map((table) => t.db.query(`SELECT * FROM ${table} ORDER BY 1`)),
      ),
    );
  const page = (path: string) => request(app).get(path).set('User-Agent', 'QuoteTest/1.0');
  const post = (path: string, form: Record<string, string>) =>
    request(app).post(path).type('form').set('User-Agent', 'QuoteTest/1.0').send(form);
  const sentQuote = async () => {
    const lead = await leadIn(services, workspaceId);
    const q = await draftQuote(services, workspaceId, lead.id);
    return { lead, q, ...(await send(services, q.id, 'https://leads.example.com')) };
  };

  describe('opportunities', () => {
    it('a lead qualified with buying intent becomes one (origin BUYING_INTENT), once', async () => {
      const lead = await leadIn(services, workspaceId, { phone: '+33612345678' });
      await asOperator(services, recordInboundMessage, {
        leadId: lead.id,
        channel: 'email',
        body: 'How much would this cost for a team of 12?',
      });
      const [intent] = await events('lead.intent_changed', `data->>'lead_id' = $2`, [lead.id]);
      assert.equal(intent!.data.intent, 'EVALUATING');
      assert.equal(intent!.data.previous_intent, null);
      assert.equal(intent!.data.next_best_action, 'SEND_QUOTE');
      assert.equal(intent!.data.classification, 'PRICING_QUESTION');
      assert.equal(intent!.data.rules_version, 'replies-2026-11-v2');
      const [reply] = await events('reply.received', `data->>'lead_id' = $2`, [lead.id]);
      assert.equal(reply!.data.classification, 'PRICING_QUESTION');
      assert.equal((await events('opportunity.created', `data->>'lead_id' = $2`, [lead.id])).length, 0);
      // The lead comes back through a form with its answers: re-qualified, now qualified.
      await leadIn(services, workspaceId, {
        email: lead.email,
        answers: { timeline: 'now', budget: 5000, decision_maker: 'yes', service: 'setup' },
      });
      const [created] = await events('opportunity.created', `data->>'lead_id' = $2`, [lead.id]);
      assert.equal(created!.data.origin, 'BUYING_INTENT');
      assert.equal(created!.data.stage, 'QUALIFIED');
      assert.equal(created!.data.motion, 'INBOUND');
      await asOperator(services, recordInboundMessage, {
        leadId: lead.id,
        channel: 'email',
        body: 'Can we book a call on Tuesday?',
      });
      const moved = await events('lead.intent_changed', `data->>'lead_id' = $2`, [lead.id]);
      assert.equal(moved.at(-1)!.data.intent, 'BOOKING_READY');
      assert.equal(moved.at(-1)!.data.previous_intent, 'EVALUATING');
      assert.equal(moved.at(-1)!.data.qualification_completeness, 1);
      assert.equal((await events('opportunity.created', `data->>'lead_id' = $2`, [lead.id])).length, 1);
    });

    it('a new lead that arrives qualified with a buying message becomes one at its intake', async () => {
      const lead = await leadIn(services, workspaceId, {
        message: 'How much would the setup cost for a team of ten?',
        answers: { timeline: 'now', budget: 5000, decision_maker: 'yes', service: 'setup' },
      });
      const types = await t.db.query<{ type: string }[]>(
        `SELECT type FROM events WHERE data->>'lead_id' = $1 ORDER BY seq`,
        [lead.id],
      );
      assert.deepEqual(
        types.map((e) => e.type),
        [
          'lead.created',
          'message.received',
          'lead.intent_changed',
          'lead.qualified',
          'lead.scored',
          'opportunity.created',
        ],
      );
      const [intent] = await events('lead.intent_changed', `data->>'lead_id' = $2`, [lead.id]);
      assert.equal(intent!.data.intent, 'EVALUATING');
      assert.equal(intent!.data.previous_intent, null);
      const [created] = await events('opportunity.created', `data->>'lead_id' = $2`, [lead.id]);
      assert.equal(created!.data.origin, 'BUYING_INTENT');
      assert.equal(created!.data.stage, 'QUALIFIED');
      // The lead carries its score, its intent and the attention its message asks for.
      const [row] = await t.db.query<Row[]>(
        `SELECT l.intent, l.intent_score, l.needs_attention, l.score_grade, l.score_id = s.id AS scored
           FROM leads l JOIN scores s ON s.lead_id = l.id WHERE l.id = $1`,
        [lead.id],
      );
      assert.deepEqual(row, {
        intent: 'EVALUATING',
        intent_score: 70,
        needs_attention: true,
        score_grade: 'A',
        scored: true,
      });
    });

    it('closes with its lead: LOST by status carries the reason; by hand it is refused when one is open', async () => {
      const lead = await leadIn(services, workspaceId);
      const o = (await asOperator(services, createOpportunity, { lead: lead.id }, { workspaceId })) as Row;
      assert.equal(o.origin, 'MANUAL');
      const again = await refusal(
        asOperator(services, createOpportunity, { lead: lead.id }, { workspaceId }),
      );
      assert.equal(again.code, 'conflict');
      await asOperator(services, closeOpportunityByHand, {
        opportunity: o.id,
        outcome: 'lost',
        reason: 'Chose a competitor',
      });
      const [lost] = await events('opportunity.lost', `data->>'lead_id' = $2`, [lead.id]);
      assert.deepEqual(
        { reason: lost!.data.reason, opportunity_id: lost!.data.opportunity_id },
        { reason: 'Chose a competitor', opportunity_id: o.id },
      );
      const [{ status }] = await t.db.query<[{ status: string }]>(`SELECT status FROM leads WHERE id = $1`, [
        lead.id,
      ]);
      assert.equal(status, 'LOST');
      const closedAgain = await refusal(
        asOperator(services, closeOpportunityByHand, { opportunity: o.id, outcome: 'won', reason: 'x' }),
      );
      assert.equal(closedAgain.code, 'conflict');
    });
  });

  describe('quotes', () => {
    it('numbered when first sent, gap-free under concurrent sending, with a failed send giving its number back', async () => {
      const { workspace } = await workspaceWithKey(t.db);
      const ws = workspace.id;
      const drafts = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const lead = await leadIn(services, ws);
          return draftQuote(services, ws, lead.id);
        }),
      );
      // A lead without an email: its send is refused after it took a number, which the rollback returns.
      const phoneOnly = (
        (await asOperator(
          services,
          createLead,
          { phone: '+33611112222', source: 'x', consent, idempotency_key: randomUUID() },
          { workspaceId: ws },
        )) as { data: { id: string } }
      ).data;
      const noEmail = await draftQuote(services, ws, phoneOnly.id);
      const results = await Promise.allSettled(
        [...drafts, noEmail].map((d) => asOperator(services, sendQuoteOp, { quote: d.id })),
      );
      assert.equal(results.filter((r) => r.status === 'rejected').length, 1);
      const numbers = (
        await t.db.query<{ number: string }[]>(
          `SELECT number FROM quotes WHERE workspace_id = $1 AND number IS NOT NULL ORDER BY number`,
          [ws],
        )
      ).map((r) => r.number);
      assert.deepEqual(
        numbers,
        Array.from({ length: 8 }, (_, i) => `Q-${String(i + 1).padStart(6, '0')}`),
      );
    });

    it('quote.sent queues the customer an email that links to the page; the page is the quote, and viewing emits quote.viewed once', async () => {
      const { lead, q, quote, token, path, message_id } = await sentQuote();
      assert.equal(quote.status, 'SENT');
      const [mail] = await t.db.query<Row[]>(
        `SELECT id, to_address, subject, body, page_link FROM messages WHERE lead_id = $1`,
        [lead.id],
      );
      assert.equal(mail!.id, message_id);
      assert.equal(mail!.to_address, lead.email);
      // The stored email names the page; the link is made when it leaves (test/e2e/bearer-links.test.ts).
      assert.match(String(mail!.body), /here: \[link to quote Q-\d{6}, revision 1\]/);
      assert.ok(!String(mail!.body).includes(token), 'no token in the stored body');
      assert.deepEqual(mail!.page_link, {
        path: '/quotes',
        subject: q.id,
        label: `[link to quote ${quote.number}, revision 1]`,
      });
      const [row] = await t.db.query<Row[]>(`SELECT token_hash FROM quotes WHERE id = $1`, [q.id]);
      assert.equal(row!.token_hash, null, 'nothing of the token is stored');
      const [sent] = await events('quote.sent', `data->>'quote_id' = $2`, [q.id]);
      assert.equal(sent!.data.total, LINES_TOTAL);
      assert.equal(sent!.data.number, quote.number);
      const first = await page(path);
      assert.equal(first.status, 200);
      assert.match(first.text, /Onboarding workshop/);
      assert.match(first.text, /€1,400\.00/);
      assert.match(
        String(first.headers['content-security-policy']),
        /^default-src 'none'; style-src 'sha256-/,
      );
      assert.equal(first.headers['referrer-policy'], 'no-referrer');
      assert.doesNotMatch(first.text, /<script/i);
      await page(path);
      assert.equal((await events('quote.viewed', `data->>'quote_id' = $2`, [q.id])).length, 1);
    });

    it('accepting with a signature keeps its evidence: name, consent text and version, time, address, user agent, document hash', async () => {
      const { q, path } = await sentQuote();
      const form = await page(path);
      const sha = /name="document_sha256" value="([0-9a-f]{64})"/.exec(form.text)![1]!;
      const accepted = await post(`${path}/accept`, {
        name: 'Ana Lima',
        consent: 'yes',
        document_sha256: sha,
      });
      assert.equal(accepted.status, 303);
      assert.equal(accepted.headers.location, path);
      const [sig] = await t.db.query<Row[]>(`SELECT * FROM quote_signatures WHERE quote_id = $1`, [q.id]);
      assert.equal(sig!.typed_name, 'Ana Lima');
      assert.equal(sig!.consent_version, 'consent-2026-11-v1');
      assert.match(String(sig!.consent_text), /electronic signature/);
      assert.equal(sig!.user_agent, 'QuoteTest/1.0');
      assert.ok(sig!.client_ip, 'the client address');
      assert.equal(sig!.document_sha256, sha);
      assert.equal((await quoteRow(q.id)).document_sha256, sha);
      const [done] = await events('signature.completed', `data->>'quote_id' = $2`, [q.id]);
      assert.equal(done!.data.document_sha256, sha);
      assert.equal((await events('quote.accepted', `data->>'quote_id' = $2`, [q.id])).length, 1);
      const after = await page(path);
      assert.match(after.text, /Accepted and signed by Ana Lima/);
      assert.doesNotMatch(after.text, /<form/);
    });

    it('refuses, changing nothing: no consent, an empty name, an unknown token, a second accept or decline', async () => {
      const { path } = await sentQuote();
      let before = await snapshot();
      const noConsent = await post(`${path}/accept`, { name: 'Ana Lima' });
      assert.equal(noConsent.status, 422);
      assert.match(noConsent.text, /Tick the box to agree/);
      assert.match(noConsent.text, /value="Ana Lima"/, 'the name typed is kept');
      const noName = await post(`${path}/accept`, { name: '   ', consent: 'yes' });
      assert.equal(noName.status, 422);
      assert.match(noName.text, /Type your full name to sign/);
      assert.equal(await snapshot(), before);
      for (const bad of ['/quotes/nope', `/quotes/${'A'.repeat(43)}`]) {
        assert.equal((await page(bad)).status, 404);
        assert.match(
          (await post(`${bad}/accept`, { name: 'A', consent: 'yes' })).text,
          /This link is not valid/,
        );
      }
      assert.equal(await snapshot(), before);
      assert.equal((await post(`${path}/accept`, { name: 'Ana', consent: 'yes' })).status, 303);
      before = await snapshot();
      const second = await post(`${path}/accept`, { name: 'Ana', consent: 'yes' });
      assert.equal(second.status, 409);
      assert.match(second.text, /Accepted and signed by Ana/);
      assert.equal((await post(`${path}/decline`, {})).status, 409);
      assert.equal(await snapshot(), before);
      const audited = await t.db.query<Row[]>(
        `SELECT action, outcome, reason FROM audit_log WHERE door = 'public' AND action = 'quote.accept' ORDER BY id`,
      );
      assert.ok(
        audited.some((a) => a.outcome === 'refused'),
        'refusals are audited',
      );
      const leaked = await t.db.query<Row[]>(
        `SELECT 1 FROM audit_log WHERE details::text LIKE $1 OR action LIKE $1`,
        [`%${path.split('/').pop()}%`],
      );
      assert.equal(leaked.length, 0, 'the token is in no audit row');
    });

    it('a declined quote is declined once: quote.declined', async () => {
      const { q, path } = await sentQuote();
      assert.equal((await post(`${path}/decline`, {})).status, 303);
      assert.equal((await events('quote.declined', `data->>'quote_id' = $2`, [q.id])).length, 1);
      const again = await post(`${path}/decline`, {});
      assert.equal(again.status, 409);
      assert.match(again.text, /has been declined/);
    });

    it('a revision supersedes the one sent before: the old link says so and refuses a signature; the number is kept', async () => {
      const { q, path: oldPath, quote } = await sentQuote();
      const revised = (await asOperator(services, reviseQuote, {
        quote: q.id,
        lines: [{ description: 'Onboarding workshop', quantity: 1, unit_amount: 100_000 }],
      })) as Row;
      assert.equal(revised.revision, 2);
      assert.equal(revised.status, 'DRAFT');
      // Until the revision is sent, the first can still be signed; sending supersedes it.
      const { quote: second, path: newPath } = await send(services, revised.id as string);
      assert.equal(second.number, quote.number);
      assert.equal((await quoteRow(q.id)).status, 'SUPERSEDED');
      const before = await snapshot();
      const old = await post(`${oldPath}/accept`, { name: 'Ana', consent: 'yes' });
      assert.equal(old.status, 409);
      assert.match(old.text, /replaced by a newer revision/);
      assert.equal(await snapshot(), before);
      assert.match((await page(newPath)).text, /revision 2/);
      const stale = await refusal(asOperator(services, reviseQuote, { quote: q.id, currency: 'USD' }));
      assert.equal(stale.code, 'conflict');
    });

    it('an expired quote says so on its page and cannot be signed', async () => {
      const { q, path } = await sentQuote();
      await asOperator(services, expireQuote, { quote: q.id });
      const [expired] = await events('quote.expired', `data->>'quote_id' = $2`, [q.id]);
      assert.ok(expired);
      const view = await page(path);
      assert.match(view.text, /This quote expired/);
      assert.doesNotMatch(view.text, /<form/);
      const refused = await post(`${path}/accept`, { name: 'Ana', consent: 'yes' });
      assert.equal(refused.status, 409);
    });

    it('refuses a quote with no lines, a negative total, a past valid-until, or a currency that is not ISO 4217', async () => {
      const lead = await leadIn(services, workspaceId);
      const before = await snapshot();
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ lines: [] }, 'lines', /at least one line/],
        [
          { lines: [{ description: 'Refund', quantity: 1, unit_amount: -500 }] },
          'lines',
          /must not be negative/,
        ],
        [{ valid_until: '2020-01-01' }, 'valid_until', /has already passed/],
        [{ valid_until: '2026-02-30' }, 'valid_until', /YYYY-MM-DD/],
        [{ currency: 'EURO' }, 'currency', /ISO 4217/],
        [
          { lines: [{ description: '', quantity: 1, unit_amount: 5 }] },
          'lines[0].description',
          /description/,
        ],
      ];
      for (const [over, field, message] of cases) {
        const err = await refusal(draftQuote(services, workspaceId, lead.id, over));
        assert.equal(err.code, 'invalid_request', JSON.stringify(over));
        assert.equal(err.details.field, field);
        assert.match(err.message, message);
      }
      assert.equal(await snapshot(), before);
    });

    it('the public page is rate-limited per client address', async () => {
      const limited = testApp(t.db, { trustProxy: true, config: { quotePagePerMinute: 3 } });
      const get = (ip: string) => request(limited).get('/quotes/nope').set('X-Forwarded-For', ip);
      for (let i = 0; i < 3; i++) assert.equal((await get('198.51.100.7')).status, 404);
      const over = await get('198.51.100.7');
      assert.equal(over.status, 429);
      assert.ok(Number(over.headers['retry-after']) > 0);
      assert.equal((await get('198.51.100.8')).status, 404, 'another address has its own count');
    });
  });

  describe('invoices', () => {
    const acceptedQuote = async (interval?: string) => {
      const lead = await leadIn(services, workspaceId);
      await asOperator(services, createOpportunity, { lead: lead.id, stage: 'BOOKED' }, { workspaceId });
      const q = (await asOperator(
        services,
        createQuote,
        {
          lead: lead.id,
          currency: 'EUR',
          lines: LINES,
          valid_until: new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10),
          ...(interval && { interval }),
        },
        { workspaceId },
      )) as Row;
      const { path } = await send(services, q.id as string);
      await post(`${path}/accept`, { name: 'Ana Lima', consent: 'yes' });
      return { lead, q };
    };

    it('issued from an accepted quote, paid in full: invoice.paid with its quote, and the opportunity won with the payment', async () => {
      const { lead, q } = await acceptedQuote('month');
      const invoice = (await asOperator(services, issueInvoice, { quote: q.id })) as Row;
      assert.match(String(invoice.number), /^INV-\d{6}$/);
      const [issued] = await events('invoice.issued', `data->>'invoice_id' = $2`, [invoice.id]);
      assert.equal(issued!.data.total, LINES_TOTAL);
      assert.equal(issued!.data.due_date, invoice.due_date);
      const paid = (await asOperator(services, payInvoice, { invoice: invoice.id })) as Row;
      assert.equal(paid.status, 'PAID');
      const [p] = await events('invoice.paid', `data->>'invoice_id' = $2`, [invoice.id]);
      assert.equal(p!.data.quote_id, q.id);
      const [won] = await events('opportunity.won', `data->>'lead_id' = $2`, [lead.id]);
      assert.deepEqual(won!.data.payment, {
        invoice_id: invoice.id,
        amount: LINES_TOTAL,
        currency: 'EUR',
        recurring: true,
        interval: 'month',
        mrr: LINES_TOTAL,
      });
      const [{ status }] = await t.db.query<[{ status: string }]>(`SELECT status FROM leads WHERE id = $1`, [
        lead.id,
      ]);
      assert.equal(status, 'WON');
      const before = await snapshot();
      const twice = await refusal(asOperator(services, payInvoice, { invoice: invoice.id }));
      assert.equal(twice.code, 'conflict');
      assert.match(twice.message, /already paid/);
      const reissue = await refusal(asOperator(services, issueInvoice, { quote: q.id }));
      assert.equal(reissue.code, 'conflict');
      assert.equal(await snapshot(), before);
    });

    it('refuses an invoice for a quote not accepted, and a partial payment', async () => {
      const { q } = await sentQuote();
      const notAccepted = await refusal(asOperator(services, issueInvoice, { quote: q.id }));
      assert.equal(notAccepted.code, 'conflict');
      const { q: accepted } = await acceptedQuote();
      const invoice = (await asOperator(services, issueInvoice, { quote: accepted.id })) as Row;
      const partial = await refusal(asOperator(services, payInvoice, { invoice: invoice.id, amount: 100 }));
      assert.equal(partial.details.field, 'amount');
    });

    it('numbers are gap-free per workspace under concurrent issuing', async () => {
      const quotes = [];
      for (let i = 0; i < 6; i++) quotes.push((await acceptedQuote()).q);
      await Promise.all(quotes.map((q) => asOperator(services, issueInvoice, { quote: q.id })));
      const numbers = (
        await t.db.query<{ number: string }[]>(
          `SELECT number FROM invoices WHERE workspace_id = $1 ORDER BY number`,
          [workspaceId],
        )
      ).map((r) => Number(r.number.slice(4)));
      assert.deepEqual(
        numbers,
        numbers.map((_, i) => i + 1),
      );
    });
  });
});
