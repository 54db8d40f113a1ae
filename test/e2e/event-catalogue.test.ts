import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import request from 'supertest';
import type * as yup from 'yup';
import { runAgentNow } from '../../domain/agents/operations/run-now';
import { createAgent } from '../../domain/agents/operations/create';
import { bookAppointment } from '../../domain/appointments/operations/book';
import { confirmAppointment } from '../../domain/appointments/operations/confirm';
import { declineAppointment } from '../../domain/appointments/operations/decline';
import { markNoShow } from '../../domain/appointments/operations/mark-no-show';
import { bookingDesk } from '../../infra/temporal/appointments';
import { createCampaign } from '../../domain/campaigns/operations/create';
import { launchCampaign } from '../../domain/campaigns/operations/launch';
import { pauseCampaign } from '../../domain/campaigns/operations/pause';
import { recordInboundMessage } from '../../domain/conversations/operations/message-inbound';
import { EVENT_TYPES, TEST_EVENT_TYPE, type EventType } from '../../domain/kernel/event-catalogue';
import type { Operation, Services } from '../../domain/kernel/operation';
import type { RunOptions } from '../../domain/kernel/runner';
import { setLeadStatus } from '../../domain/leads/operations/set-status';
import { issueInvoice } from '../../domain/sales/operations/invoice-issue';
import { payInvoice } from '../../domain/sales/operations/invoice-pay';
import { remindOverdueInvoice } from '../../domain/sales/operations/invoice-remind-overdue';
import { closeOpportunityByHand } from '../../domain/sales/operations/opportunity-close';
import { createOpportunity } from '../../domain/sales/operations/opportunity-create';
import { expireQuote } from '../../domain/sales/operations/quote-expire';
import { suppressContact } from '../../domain/leads/operations/contact-suppress';
import { testEndpoint } from '../../domain/webhooks/operations/endpoint-send-test';
import { timerCanceller } from '../../infra/temporal/sales';
import { waitFor } from '../../tooling/processes';
import { startSmtpSink } from '../../tooling/smtp-sink';
import { asOperator, bearer, zoneAtNoon } from '../helpers/fixtures';
import { intakeBody, postLead } from '../helpers/leads';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { draftQuote, send } from '../helpers/sales';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';
import { testServices } from '../../tooling/services';

type Data = Record<string, unknown>;

/** The spec's fields of each type's data (its "Fields of data" table and catalogue), beyond the outbox's. */
const SPEC_FIELDS: Record<EventType, string[]> = {
  'lead.created': ['lead_id'],
  'lead.touched': ['lead_id', 'touch_id', 'outcome', 'source_type', 'source'],
  'lead.qualified': ['result', 'status', 'reasons'],
  'lead.status_changed': ['lead_id', 'status', 'previous_status'],
  'lead.handover_required': ['lead_id', 'reason'],
  'lead.scored': SCORE(),
  'score.changed': SCORE(),
  'lead.intent_changed': [
    'lead_id',
    'intent',
    'previous_intent',
    'intent_score',
    'next_best_action',
    'qualification_completeness',
  ],
  'message.received': ['message_id', 'lead_id', 'channel'],
  'reply.received': ['message_id', 'lead_id', 'channel', 'classification'],
  'booking.created': ['booking_id', 'lead_id', 'provider', 'status', 'starts_at', 'ends_at'],
  'meeting.booked': MEETING(),
  'meeting.pending': MEETING(),
  'meeting.cancelled': MEETING(),
  'meeting.no_show': MEETING(),
  'contact.unsubscribed': SUPPRESSION(),
  'contact.suppressed': SUPPRESSION(),
  'opportunity.created': ['lead_id', 'stage', 'motion'],
  'opportunity.won': ['lead_id', 'reason', 'payment'],
  'opportunity.lost': ['lead_id', 'reason'],
  'ai.escalated': ['handoff_id', 'lead_id', 'conversation_id', 'reason', 'priority'],
  'quote.sent': ['quote_id', 'number', 'opportunity_id', 'lead_id', 'revision', 'total', 'valid_until'],
  'quote.viewed': ['quote_id', 'number', 'revision'],
  'quote.accepted': ['quote_id', 'number', 'revision'],
  'quote.declined': ['quote_id', 'number', 'revision'],
  'quote.expired': ['quote_id', 'number', 'revision'],
  'signature.completed': ['quote_id', 'number', 'revision', 'signed_at'],
  'invoice.issued': ['invoice_id', 'number', 'total', 'currency', 'due_date'],
  'invoice.paid': ['invoice_id', 'number', 'total', 'quote_id'],
  'invoice.overdue': ['invoice_id', 'number', 'amount_due'],
  'endpoint.test': ['endpoint_id'],
  // Ours, beyond the spec's catalogue.
  'campaign.paused': ['campaign_id', 'reason', 'sends', 'hard_bounces', 'complaints'],
};
function SCORE() {
  return [
    'lead_id',
    'score_id',
    'total',
    'grade',
    'previous_grade',
    'confidence',
    'trigger_event',
    'scoring_version',
  ];
}
function MEETING() {
  return ['booking_id', 'lead_id', 'provider', 'status', 'previous_status', 'starts_at', 'ends_at'];
}
function SUPPRESSION() {
  return ['lead_id', 'suppression_id', 'channel', 'reason', 'source'];
}

/**
 * Every event type of the catalogue, and endpoint.test, produced by the real operation that sends it on
 * the real stack (PostgreSQL, Temporal, the worker and its relay, SMTP), received signed by an
 * endpoint subscribed to everything, and checked against the schema `GET /api/v1/event-types` serves
 * and the spec's fields. A catalogue type with no producer below fails the first test.
 */
describe('the whole event catalogue, each type produced by its operation and delivered', () => {
  let s: WebhookStack;
  let rx: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let services: Services;
  let served: { data: { name: string; schema: Data }[]; envelope: Data };
  const ajv = addFormats(new Ajv2020({ strict: true }));
  /** What earlier producers made, for later ones. */
  const w: Record<string, string> = {};

  before(async () => {
    smtp = await startSmtpSink();
    s = await startWebhookStack({
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'team@acme.example', PUBLIC_URL: 'https://leads.example.com' },
    });
    rx = await startReceiver();
    const endpoint = await s.endpoint(rx, ['*']);
    w.endpoint = endpoint.id;
    await s.db.query(`UPDATE workspaces SET timezone = $2 WHERE id = $1`, [s.workspace.id, zoneAtNoon()]);
    services = testServices(s.db, {
      webhooks: s.endpointDeps,
      appointments: bookingDesk(s.db, () => Promise.resolve(s.client), s.config.temporalTaskQueue),
      cancelTimers: timerCanceller(() => Promise.resolve(s.client)),
    });
    served = (await request(s.app).get('/api/v1/event-types').set(bearer(s.key)).expect(200))
      .body as typeof served;
  });
  after(async () => {
    await s.stop();
    await rx.close();
    await smtp.stop();
  });

  const ws = () => ({ workspaceId: s.workspace.id });
  const run = <S extends yup.AnyObjectSchema, O>(op: Operation<S, O>, input: Data, opts: RunOptions = {}) =>
    asOperator(services, op, input, opts);
  const intake = async (over: Data = {}) => {
    const res = await postLead(s.app, s.key, intakeBody({ source: 'catalogue', ...over }));
    assert.ok(res.status < 300, JSON.stringify(res.body));
    return (res.body as { data: { id: string; email: string } }).data;
  };
  /** A one-hour meeting for the catalogue's lead, some days ahead; answers its id. */
  const book = async (daysAhead: number) => {
    const start = new Date(Date.now() + daysAhead * 86_400_000);
    const b = (await run(
      bookAppointment,
      {
        leadId: w.lead,
        starts_at: start.toISOString(),
        ends_at: new Date(start.getTime() + 3_600_000).toISOString(),
      },
      ws(),
    )) as { id: string };
    return b.id;
  };
  const page = (path: string) => request(s.app).get(path).set('User-Agent', 'CatalogueTest/1.0');
  const form = (path: string, body: Data) => request(s.app).post(path).type('form').send(body);
  const acceptedQuote = async (leadId: string) => {
    const q = await draftQuote(services, s.workspace.id, leadId, { interval: 'year' });
    const { path } = await send(services, q.id);
    await form(`${path}/accept`, { name: 'Ana Lima', consent: 'yes' }).expect(303);
    return q.id;
  };

  /** For each type: run what produces it; answer how to recognise the event it sent. */
  const PRODUCERS: Record<EventType, () => Promise<(d: Data) => boolean>> = {
    'lead.created': async () => {
      // Only a name and an email: a low grade, so the next intake (phone, answers) moves it.
      const lead = await intake({ phone: undefined, first_name: 'Cat', last_name: undefined });
      w.lead = lead.id;
      w.email = lead.email;
      return (d) => d.lead_id === w.lead;
    },
    'lead.qualified': async () => (d) => d.lead_id === w.lead,
    'lead.scored': async () => (d) => d.lead_id === w.lead,
    'lead.touched': async () => {
      await intake({ email: w.email, phone: '+33612345678', answers: { timeline: 'now', budget: 5000 } });
      return (d) => d.lead_id === w.lead;
    },
    'score.changed': async () => (d) => d.lead_id === w.lead && d.trigger_event === 'lead.touched',
    'lead.status_changed': async () => {
      await run(setLeadStatus, { leadId: w.lead, status: 'CONTACTED' });
      return (d) => d.lead_id === w.lead && d.status === 'CONTACTED';
    },
    'message.received': async () => {
      await run(recordInboundMessage, {
        leadId: w.lead,
        channel: 'email',
        body: 'What would it cost for 12 people?',
      });
      return (d) => d.lead_id === w.lead;
    },
    'reply.received': async () => (d) => d.lead_id === w.lead && d.classification === 'PRICING_QUESTION',
    'lead.intent_changed': async () => (d) => d.lead_id === w.lead && d.intent === 'EVALUATING',
    'opportunity.created': async () => (d) => d.lead_id === w.lead && d.motion === 'INBOUND',
    'booking.created': async () => {
      w.booking = await book(3);
      return (d) => d.booking_id === w.booking;
    },
    'meeting.pending': async () => (d) => d.booking_id === w.booking,
    'meeting.booked': async () => {
      await received('meeting.pending', (d) => d.booking_id === w.booking);
      await run(confirmAppointment, { appointmentId: w.booking });
      return (d) => d.booking_id === w.booking && d.status === 'CONFIRMED';
    },
    'meeting.cancelled': async () => {
      const id = await book(5);
      await received('meeting.pending', (d) => d.booking_id === id);
      await run(declineAppointment, { appointmentId: id });
      return (d) => d.booking_id === id;
    },
    'meeting.no_show': async () => {
      // A confirmed meeting that has started (written as a calendar would have left it).
      const [a] = await s.db.query<{ id: string }[]>(
        `INSERT INTO appointments (workspace_id, lead_id, status, starts_at, ends_at, timezone, title, provider)
         VALUES ($1, $2, 'CONFIRMED', now() - interval '2 hours', now() - interval '1 hour', 'UTC', 'Intro', 'manual')
         RETURNING id`,
        [s.workspace.id, w.lead],
      );
      await run(markNoShow, { appointmentId: a!.id });
      return (d) => d.booking_id === a!.id;
    },
    'contact.unsubscribed': async () => {
      const lead = await intake();
      await run(suppressContact, { address: lead.email, channel: 'ALL', reason: 'unsubscribed' }, ws());
      return (d) => d.lead_id === lead.id;
    },
    'contact.suppressed': async () => {
      const lead = await intake();
      await run(suppressContact, { address: lead.email, channel: 'email', reason: 'manual' }, ws());
      return (d) => d.lead_id === lead.id;
    },
    'ai.escalated': async () => {
      const lead = await intake({ source: 'catalogue-agent' });
      w.agentLead = lead.id;
      const agent = (await run(
        createAgent,
        {
          name: 'Chaser',
          type: 'follow_up',
          sources: { lead_sources: ['catalogue-agent'] },
          review_level: 'send',
        },
        ws(),
      )) as { id: string };
      await run(runAgentNow, { agentId: agent.id });
      await received('lead.status_changed', (d) => d.lead_id === lead.id && d.status === 'CONTACTED');
      await run(recordInboundMessage, {
        leadId: lead.id,
        channel: 'email',
        body: 'This is unacceptable. I want to make a complaint.',
      });
      return (d) => d.lead_id === lead.id;
    },
    'lead.handover_required': async () => (d) => d.lead_id === w.agentLead,
    'quote.sent': async () => {
      const q = await draftQuote(services, s.workspace.id, w.lead!);
      const sent = await send(services, q.id, 'https://leads.example.com');
      w.quote = q.id;
      w.quotePath = sent.path;
      await waitFor(
        'the quote email with its link',
        async () =>
          smtp.received.some((m) => m.to.includes(w.email!) && (m.mail.text ?? '').includes(sent.link)) ||
          undefined,
        20_000,
      );
      return (d) => d.quote_id === w.quote;
    },
    'quote.viewed': async () => {
      await page(w.quotePath!).expect(200);
      return (d) => d.quote_id === w.quote;
    },
    'signature.completed': async () => {
      await form(`${w.quotePath}/accept`, { name: 'Ana Lima', consent: 'yes' }).expect(303);
      return (d) => d.quote_id === w.quote;
    },
    'quote.accepted': async () => (d) => d.quote_id === w.quote,
    'quote.declined': async () => {
      const q = await draftQuote(services, s.workspace.id, w.lead!);
      const { path } = await send(services, q.id);
      await form(`${path}/decline`, {}).expect(303);
      return (d) => d.quote_id === q.id;
    },
    'quote.expired': async () => {
      // Its timer's work (test/integration/sales-timers.test.ts runs the timer under time-skipping).
      const q = await draftQuote(services, s.workspace.id, w.lead!);
      await send(services, q.id);
      await run(expireQuote, { quote: q.id });
      return (d) => d.quote_id === q.id;
    },
    'invoice.issued': async () => {
      const invoice = (await run(issueInvoice, { quote: w.quote })) as { id: string };
      w.invoice = invoice.id;
      return (d) => d.invoice_id === w.invoice;
    },
    'invoice.paid': async () => {
      await run(payInvoice, { invoice: w.invoice });
      return (d) => d.invoice_id === w.invoice && d.quote_id === w.quote;
    },
    'opportunity.won': async () => (d) =>
      d.lead_id === w.lead && (d.payment as Data | null)?.invoice_id === w.invoice,
    'campaign.paused': async () => {
      await intake({ source: 'catalogue-campaign' });
      const campaign = (await run(
        createCampaign,
        {
          name: 'Catalogue',
          channel: 'email',
          audience: { sources: ['catalogue-campaign'] },
          steps: [{ subject: 'Hello', body: 'A word from us.', delay_hours: 0 }],
        },
        ws(),
      )) as { id: string };
      await run(launchCampaign, { campaignId: campaign.id });
      await run(pauseCampaign, { campaignId: campaign.id });
      return (d) => d.campaign_id === campaign.id && d.reason === 'person';
    },
    'invoice.overdue': async () => {
      const lead = await intake();
      const invoice = (await run(issueInvoice, { quote: await acceptedQuote(lead.id) })) as { id: string };
      // Its timer's work, at the due date (the timer itself: test/integration/sales-timers.test.ts).
      await run(remindOverdueInvoice, { invoice: invoice.id });
      await waitFor(
        'the overdue reminder by email',
        async () =>
          smtp.received.some((m) => m.to.includes(lead.email) && /is overdue/.test(m.mail.subject ?? '')) ||
          undefined,
        20_000,
      );
      return (d) => d.invoice_id === invoice.id;
    },
    'opportunity.lost': async () => {
      const lead = await intake();
      const o = (await run(createOpportunity, { lead: lead.id }, ws())) as { id: string };
      await run(closeOpportunityByHand, {
        opportunity: o.id,
        outcome: 'lost',
        reason: 'No budget this year',
      });
      return (d) => d.lead_id === lead.id && d.reason === 'No budget this year';
    },
    'endpoint.test': async () => {
      await run(testEndpoint, { id: w.endpoint });
      return (d) => d.endpoint_id === w.endpoint;
    },
  };

  const received = (type: string, match: (d: Data) => boolean) =>
    waitFor(
      `a delivered ${type}`,
      async () =>
        rx
          .ofType(type)
          .map((r) => ({ ok: r.helperOk, body: JSON.parse(r.body) as { type: string; data: Data } }))
          .find((e) => match(e.body.data)),
      30_000,
      50,
    );

  it('has a producer, a published schema and the spec fields for every catalogue type and endpoint.test', () => {
    const all = [...EVENT_TYPES, TEST_EVENT_TYPE];
    assert.deepEqual(Object.keys(PRODUCERS).sort(), [...all].sort(), 'a catalogue type has no producer');
    assert.deepEqual(
      served.data.map((t) => t.name),
      all,
    );
  });

  for (const type of Object.keys(PRODUCERS) as EventType[]) {
    it(`${type}: delivered signed, valid against its schema, with the spec's fields`, async () => {
      const match = await PRODUCERS[type]();
      const got = await received(type, match);
      assert.ok(got.ok, 'the signature verifies');
      assert.ok(ajv.validate(served.envelope, got.body), `envelope: ${ajv.errorsText()}`);
      const schema = served.data.find((t) => t.name === type)!.schema;
      assert.ok(ajv.validate(schema, got.body.data), `${type} data: ${ajv.errorsText()}`);
      for (const f of ['subject_type', 'subject_id', 'occurred_at', ...SPEC_FIELDS[type]])
        assert.ok(f in got.body.data, `${type} carries ${f}`);
    });
  }
});
