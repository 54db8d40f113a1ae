import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { authenticateKey } from '../../domain/identity/authenticate';
import { keyActor, operatorActor } from '../../domain/kernel/actor';
import { emitEvent } from '../../domain/kernel/events';
import { deliveryFanOut } from '../../domain/webhooks/fan-out';
import type { AnyOperation, DeliveryRun, Services } from '../../domain/kernel/operation';
import { SCOPES } from '../../domain/kernel/permissions';
import { runOperation, type RunOptions } from '../../domain/kernel/runner';
import { addConnection } from '../../domain/connections/operations/add';
import { createLead } from '../../domain/leads/operations/create';
import { allOperations } from '../../domain/registry';
import { operations as oauth } from '../../domain/oauth';
import { unsubscribeLinks } from '../../domain/conversations/unsubscribe-links';
import { pageLinks } from '../../domain/conversations/page-links';
import { QUOTE_PAGE_PATH } from '../../domain/sales/quote-lifecycle';
import { issueInvoice } from '../../domain/sales/operations/invoice-issue';
import { createOpportunity } from '../../domain/sales/operations/opportunity-create';
import { acceptQuotePage } from '../../domain/sales/operations/quote-accept';
import { createQuote } from '../../domain/sales/operations/quote-create';
import { sendQuoteOp } from '../../domain/sales/operations/quote-send';
import { createEndpoint } from '../../domain/webhooks/operations/endpoint-create';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { operator, refusal, workspaceWithKey } from '../helpers/fixtures';
import { intakeBody } from '../helpers/leads';
import { testServices } from '../../tooling/services';

const SECRETS_KEY = Buffer.alloc(32, 7);
const IN_A_MONTH = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

/** A candidate list for `prospect.import`, which reads a file on the server. */
const PROSPECT_CSV = path.join(mkdtempSync(path.join(tmpdir(), 'ops-')), 'q4.csv');
writeFileSync(PROSPECT_CSV, 'email,first_name\nana@acme.example,Ana\n');

/** Every table a change can touch; a digest of their rows says whether anything changed. */
const TABLES = [
  'workspaces',
  'users',
  'memberships',
  'api_keys',
  'console_sessions',
  'member_mail',
  'audit_log',
  'leads',
  'lead_notes',
  'messages',
  'touches',
  'suppressions',
  'scores',
  'events',
  'idempotency_keys',
  'webhook_endpoints',
  'webhook_deliveries',
  'webhook_attempts',
  'notifications',
  'connections',
  'appointments',
  'campaigns',
  'campaign_recipients',
  'agents',
  'agent_runs',
  'agent_drafts',
  'agent_actions',
  'handoffs',
  'prospect_lists',
  'sourcing_runs',
  'prospects',
  'opportunities',
  'document_counters',
  'quotes',
  'quote_signatures',
  'invoices',
  'assistant_connections',
  'oauth_records',
  'oauth_signing_keys',
];

const snapshot = async (db: DataSource) =>
  Object.fromEntries(
    await Promise.all(
      TABLES.map(async (t) => {
        const [row] = await db.query<{ digest: string | null }[]>(
          `SELECT md5(string_agg(x::text, '|' ORDER BY x::text)) AS digest FROM ${t} x`,
        );
        return [t, row!.digest] as const;
      }),
    ),
  );

/** A workspace with one of everything an operation can name: a lead, an endpoint, a delivery, a key, a member. */
async function populated(db: DataSource, services: Services) {
  const w = await workspaceWithKey(db, { role: 'owner', scopes: [...SCOPES] });
  const workspaceId = w.workspace.id;
  const as = operatorActor(operator);
  const lead = await runOperation(
    services,
    createLead,
    as,
    { ...intakeBody(), idempotency_key: randomUUID() },
    { workspaceId },
  );
  const endpoint = await runOperation(
    services,
    createEndpoint,
    as,
    { url: 'http://127.0.0.1:9/hooks', events: ['*'] },
    { workspaceId },
  );
  // A delivery that gave up, so it can be resent.
  const eventId = await db.transaction((m) =>
    emitEvent(
      m,
      deliveryFanOut,
      workspaceId,
      'lead.qualified',
      { type: 'lead', id: lead.data!.id },
      { lead_id: lead.data!.id, result: 'QUALIFIED', status: 'NEW', reasons: [], answers: {} },
    ),
  );
  const [delivery] = await db.query<{ id: string }[]>(
    `WITH ended AS (UPDATE webhook_deliveries SET status = 'EXHAUSTED', workflow_started_at = now()
                     WHERE event_id = $1 RETURNING id)
     SELECT id FROM ended`,
    [eventId],
  );
  await db.query(`UPDATE webhook_deliveries SET workflow_started_at = now() WHERE workspace_id = $1`, [
    workspaceId,
  ]);
  const connection = await runOperation(
    services,
    addConnection,
    as,
    { system: 'google_calendar' },
    {
      workspaceId,
    },
  );
  const [approval] = await db.query<{ id: string }[]>(
    `INSERT INTO approvals (workspace_id, operation, input, input_hash, summary, requested_by_key, requested_by_user, expires_at)
     VALUES ($1, 'connection.disconnect', '{}', '\\x00', 'Disconnect', $2, $3, now() + interval '7 days') RETURNING id`,
    [workspaceId, w.key.id, w.key.owner_user_id],
  );
  // A confirmed meeting that has started, so it can be marked a no-show (or named, and refused).
  const [appointment] = await db.query<{ id: string }[]>(
    `INSERT INTO appointments (workspace_id, lead_id, status, starts_at, ends_at, timezone, title, provider)
     VALUES ($1, $2, 'CONFIRMED', now() - interval '2 hours', now() - interval '1 hour', 'UTC', 'Intro', 'manual')
     RETURNING id`,
    [workspaceId, lead.data!.id],
  );
  // Campaigns in each state an operation acts on: a one-step draft, a running one, a paused one.
  const campaign = async (status: string) =>
    (
      await db.query<{ id: string }[]>(
        `INSERT INTO campaigns (workspace_id, name, channel, status, audience, steps, send_window, daily_cap)
         VALUES ($1, 'Spring', 'email', $2, '{}', '[{"subject":"Hi","body":"Hello {first_name}","delay_hours":0}]',
                 '{"weekdays":[1,2,3,4,5],"start_hour":9,"end_hour":18}', 100) RETURNING id`,
        [workspaceId, status],
      )
    )[0]!.id;
  // Agents in each state an operation acts on, with a run and a draft waiting for review.
  const agent = async (status: string) =>
    (
      await db.query<{ id: string }[]>(
        `INSERT INTO agents (workspace_id, name, type, status, cadence, sources, limits, template_version)
         VALUES ($1, 'Chaser', 'follow_up', $2, '{"days":[1,2,3,4,5],"time":"09:00"}',
                 '{"lead_statuses":["NEW"]}', '{"per_run":5,"per_day":10,"per_lead_per_week":1}', 'v1')
         RETURNING id`,
        [workspaceId, status],
      )
    )[0]!.id;
  const draftAgentId = await agent('DRAFT');
  const [run] = await db.query<{ id: string }[]>(
    `INSERT INTO agent_runs (workspace_id, agent_id, workflow_id, trigger) VALUES ($1, $2, $3, 'run_now') RETURNING id`,
    [workspaceId, draftAgentId, `agent:${draftAgentId}-now-${randomUUID()}`],
  );
  const [draft] = await db.query<{ id: string }[]>(
    `INSERT INTO agent_drafts (workspace_id, agent_id, run_id, lead_id, channel, subject, body, template)
     VALUES ($1, $2, $3, $4, 'email', 'Hi', 'Hello', 'follow_up.first@v1') RETURNING id`,
    [workspaceId, draftAgentId, run!.id, lead.data!.id],
  );
  const [list] = await db.query<{ id: string }[]>(
    `INSERT INTO prospect_lists (workspace_id, name) VALUES ($1, 'Q4') RETURNING id`,
    [workspaceId],
  );
  const [prospect] = await db.query<{ id: string }[]>(
    `INSERT INTO prospects (workspace_id, list_id, email, line, status, score)
     VALUES ($1, $2, $3, 2, 'SCORED', 80) RETURNING id`,
    [workspaceId, list!.id, `prospect-${randomUUID().slice(0, 8)}@example.com`],
  );
  // The sales back half: a lead with an open opportunity, a draft quote, a sent one (whose page's token
  // the customer's operations take), and an invoice issued from an accepted one.
  const sales = await runOperation(
    services,
    createLead,
    as,
    { ...intakeBody(), idempotency_key: randomUUID() },
    { workspaceId },
  );
  const salesLeadId = sales.data!.id;
  const opportunity = await runOperation(
    services,
    createOpportunity,
    as,
    { lead: salesLeadId },
    { workspaceId },
  );
  const quote = () =>
    runOperation(
      services,
      createQuote,
      as,
      {
        lead: salesLeadId,
        currency: 'EUR',
        lines: [{ description: 'Setup', quantity: 1, unit_amount: 50_000 }],
        valid_until: IN_A_MONTH,
      },
      { workspaceId },
    );
  // The token the email carries, made as the worker makes it when the email leaves.
  const sendQuote = async () => {
    const { quote: sent } = await runOperation(services, sendQuoteOp, as, { quote: (await quote()).id });
    return pageLinks(services.secretsKey, QUOTE_PAGE_PATH).token(sent.id);
  };
  const quoteToken = await sendQuote();
  const invoiced = await sendQuote();
  await runOperation(services, acceptQuotePage, as, { token: invoiced, name: 'Ana Lima', consent: true });
  const acceptedToken = await sendQuote();
  const accepted = await runOperation(services, acceptQuotePage, as, {
    token: acceptedToken,
    name: 'Ana Lima',
    consent: true,
  });
  const [acceptedQuote] = await db.query<{ id: string }[]>(
    `SELECT id FROM quotes WHERE number = $1 AND workspace_id = $2`,
    [accepted.number, workspaceId],
  );
  const [invoicedQuote] = await db.query<{ id: string }[]>(
    `SELECT id FROM quotes WHERE status = 'ACCEPTED' AND workspace_id = $1 AND id <> $2`,
    [workspaceId, acceptedQuote!.id],
  );
  const invoice = await runOperation(services, issueInvoice, as, { quote: invoicedQuote!.id });
  // An assistant a member connected over OAuth, and a client that registered itself.
  const assistant = await runOperation(
    services,
    oauth.grantAssistantConnection,
    as,
    assistantConsent(w.key.owner_user_id),
    { workspaceId },
  );
  const registeredClientId = `client-${randomUUID()}`;
  await db.query(`INSERT INTO oauth_records (model, id, payload) VALUES ('Client', $1, $2)`, [
    registeredClientId,
    JSON.stringify({
      client_id: registeredClientId,
      client_name: 'Registered',
      redirect_uris: ['https://client.example/cb'],
    }),
  ]);
  return {
    ...w,
    workspaceId,
    opportunityId: opportunity.id,
    draftQuoteId: (await quote()).id,
    quoteToken,
    acceptedQuoteId: acceptedQuote!.id,
    invoiceId: invoice.id,
    prospectId: prospect!.id,
    draftAgentId,
    activeAgentId: await agent('ACTIVE'),
    agentDraftId: draft!.id,
    // An email the provider accepted, for a bounce report to name.
    sentEmailId: (
      await db.query<{ provider_message_id: string }[]>(
        `INSERT INTO messages (workspace_id, lead_id, channel, direction, status, body, to_address, provider_message_id)
         VALUES ($1, $2, 'email', 'outbound', 'sent', 'Hello', $3, $4) RETURNING provider_message_id`,
        [workspaceId, lead.data!.id, lead.data!.email, `<${randomUUID()}@ops.example>`],
      )
    )[0]!.provider_message_id,
    draftCampaignId: await campaign('DRAFT'),
    runningCampaignId: await campaign('RUNNING'),
    pausedCampaignId: await campaign('PAUSED'),
    leadEmail: lead.data!.email!,
    appointmentId: appointment!.id,
    leadId: lead.data!.id,
    endpointId: endpoint.id,
    deliveryId: delivery!.id,
    connectionId: connection.id,
    approvalId: approval!.id,
    assistantConnectionId: assistant.id,
    registeredClientId,
  };
}

/** A member's consent to an assistant, as the console's consent page records it. */
const assistantConsent = (memberId: string) => ({
  memberId,
  grantId: randomUUID(),
  clientId: 'https://assistant.example/client.json',
  clientName: 'Assistant',
  clientHost: 'assistant.example',
  clientKind: 'document',
  scopes: ['leads:read'],
});
type Populated = Awaited<ReturnType<typeof populated>>;

/**
 * A valid input for every operation, naming records of workspace `w`. A new operation without an
 * entry fails the tests below: tenancy and atomicity are checked for every one of them.
 */
const INPUTS: Record<string, (w: Populated) => Record<string, unknown>> = {
  'workspace.create': () => ({ name: 'Another business' }),
  'workspace.get': () => ({}),
  'member.add': () => ({ email: `new-${randomUUID().slice(0, 8)}@example.com`, role: 'member' }),
  'member.set_role': (w) => ({ email: w.email, role: 'admin' }),
  'member.remove': (w) => ({ email: w.email }),
  'member.list': () => ({}),
  'member.invite': () => ({ email: `invited-${randomUUID().slice(0, 8)}@example.com`, role: 'member' }),
  'member.sessions': (w) => ({ email: w.email, revoke: true }),
  'key.create': (w) => ({ ownerEmail: w.email, name: 'another key', scopes: ['leads:read'] }),
  'key.revoke': (w) => ({ id: w.key.id }),
  'key.list': () => ({}),
  'audit.list': () => ({}),
  'lead.search': () => ({}),
  'lead.get': (w) => ({ leadId: w.leadId }),
  'lead.create': () => ({ ...intakeBody(), idempotency_key: randomUUID() }),
  'lead.update': (w) => ({ leadId: w.leadId, first_name: 'Changed' }),
  'lead.set_status': (w) => ({ leadId: w.leadId, status: 'CONTACTED' }),
  'lead.add_note': (w) => ({ leadId: w.leadId, note: 'Called, no answer.' }),
  'lead.edit': (w) => ({ leadId: w.leadId, first_name: 'Edited', status: 'CONTACTED', note: 'Edited.' }),
  'lead.archive': (w) => ({ leadId: w.leadId }),
  'lead.qualify': (w) => ({ leadId: w.leadId }),
  'contact.suppress': () => ({ address: `blocked-${randomUUID().slice(0, 8)}@example.com` }),
  'message.inbound': (w) => ({ leadId: w.leadId, channel: 'sms', body: 'Hello?' }),
  'endpoint.create': () => ({ url: 'http://127.0.0.1:9/other', events: ['lead.created'] }),
  'endpoint.rotate_secret': (w) => ({ id: w.endpointId, overlap: '1h' }),
  'endpoint.enable': (w) => ({ id: w.endpointId }),
  'endpoint.disable': (w) => ({ id: w.endpointId }),
  'endpoint.delete': (w) => ({ id: w.endpointId }),
  'endpoint.set_events': (w) => ({ id: w.endpointId, events: ['lead.created'] }),
  'endpoint.set_scheme': (w) => ({ id: w.endpointId, scheme: 'both' }),
  'endpoint.list': () => ({}),
  'endpoint.deliveries': (w) => ({ id: w.endpointId }),
  'endpoint.send_test': (w) => ({ id: w.endpointId }),
  'endpoint.recover': (w) => ({ id: w.endpointId, since: '2020-01-01T00:00:00Z' }),
  'delivery.list': () => ({}),
  'delivery.resend': (w) => ({ id: w.deliveryId }),
  'notification.list': () => ({}),
  'conversation.list': (w) => ({ leadId: w.leadId }),
  'conversation.get': (w) => ({ leadId: w.leadId, channel: 'email' }),
  'conversation.reply': (w) => ({ leadId: w.leadId, channel: 'email', body: 'Thanks, we will call you.' }),
  'message.receive': (w) => ({
    channel: 'email',
    from: w.leadEmail,
    body: 'Is it still available?',
    providerMessageId: `<${randomUUID()}@mail.example.com>`,
  }),
  'message.bounce': (w) => ({ originalMessageId: w.sentEmailId, status: '5.1.1' }),
  'message.complaint': (w) => ({ originalMessageId: w.sentEmailId, feedbackType: 'abuse' }),
  'mail.dns': () => ({ domain: 'acme.example' }),
  'workspace.set_deliverability': () => ({ max_bounce_percent: 4 }),
  'workspace.set_approval_policy': () => ({ distinct: 'false' }),
  'workspace.set_seller_profile': () => ({ name: 'Acme SAS', terms_url: 'https://acme.example/terms' }),
  'contact.unsubscribe_link': (w) => ({
    token: unsubscribeLinks(SECRETS_KEY).token(w.leadId, 'anyone@example.com'),
  }),
  'workspace.issue_inbound_email_secret': () => ({}),
  'campaign.create': () => ({
    name: 'Autumn',
    channel: 'email',
    steps: [{ subject: 'Hi {first_name}', body: 'Hello', delay_hours: 0 }],
  }),
  'campaign.update': (w) => ({ campaignId: w.draftCampaignId, name: 'Renamed' }),
  'campaign.preview': (w) => ({ campaignId: w.draftCampaignId, leadId: w.leadId }),
  'campaign.list': () => ({}),
  'campaign.get': (w) => ({ campaignId: w.draftCampaignId }),
  'campaign.send': (w) => ({ campaignId: w.draftCampaignId }),
  'campaign.launch': (w) => ({ campaignId: w.draftCampaignId }),
  'campaign.pause': (w) => ({ campaignId: w.runningCampaignId }),
  'campaign.resume': (w) => ({ campaignId: w.pausedCampaignId }),
  'connection.add': () => ({ system: 'hubspot' }),
  'appointment.list': () => ({}),
  'appointment.get': (w) => ({ appointmentId: w.appointmentId }),
  'appointment.book': (w) => ({
    leadId: w.leadId,
    starts_at: new Date(Date.now() + 86_400_000).toISOString(),
    ends_at: new Date(Date.now() + 90_000_000).toISOString(),
  }),
  'appointment.confirm': (w) => ({ appointmentId: w.appointmentId }),
  'appointment.decline': (w) => ({ appointmentId: w.appointmentId }),
  'appointment.cancel': (w) => ({ appointmentId: w.appointmentId, reason: 'The lead asked to move it.' }),
  'appointment.mark_no_show': (w) => ({ appointmentId: w.appointmentId }),
  'connection.list': () => ({}),
  'connection.disconnect': (w) => ({ connectionId: w.connectionId }),
  'approval.get': (w) => ({ approvalId: w.approvalId }),
  'approval.list': () => ({}),
  'approval.show': (w) => ({ id: w.approvalId }),
  'approval.cancel': (w) => ({ approvalId: w.approvalId }),
  'approval.approve': (w) => ({ id: w.approvalId, as: w.email }),
  'approval.reject': (w) => ({ id: w.approvalId, as: w.email }),
  // A member's signed decision: the shape is whole, the signature is the console's to check.
  'approval.decide': (w) => ({
    id: w.approvalId,
    decision: 'approve',
    digest: '0'.repeat(64),
    credentialId: 'Y3JlZA',
    assertion: {
      id: 'Y3JlZA',
      rawId: 'Y3JlZA',
      type: 'public-key',
      response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA' },
    },
  }),
  'analytics.summary': () => ({ from: '2026-01-01', to: '2026-01-31' }),
  'prospect.import': () => ({ file: PROSPECT_CSV, list: 'Imported' }),
  'prospect.start_sourcing': () => ({ list: 'Q4' }),
  'prospect.list': () => ({}),
  'prospect.get': (w) => ({ prospectId: w.prospectId }),
  'prospect.approve': (w) => ({ prospectId: w.prospectId }),
  'prospect.reject': (w) => ({ prospectId: w.prospectId, reason: 'Not a fit' }),
  'agent.create': () => ({ name: 'Chaser', type: 'follow_up' }),
  'agent.configure': (w) => ({ agentId: w.draftAgentId, review_level: 'send' }),
  'agent.list': () => ({}),
  'agent.get': (w) => ({ agentId: w.draftAgentId }),
  'agent.runs': (w) => ({ agentId: w.draftAgentId }),
  'agent.start': (w) => ({ agentId: w.draftAgentId }),
  'agent.run_now': (w) => ({ agentId: w.draftAgentId }),
  'agent.pause': (w) => ({ agentId: w.activeAgentId }),
  'agent.stop': (w) => ({ agentId: w.activeAgentId }),
  'agent.drafts': () => ({}),
  'agent.send_draft': (w) => ({ draftId: w.agentDraftId }),
  'agent.discard_draft': (w) => ({ draftId: w.agentDraftId }),
  'opportunity.create': (w) => ({ lead: w.leadId }),
  'opportunity.close': (w) => ({ opportunity: w.opportunityId, outcome: 'lost', reason: 'Budget cut' }),
  'opportunity.get': (w) => ({ opportunity: w.opportunityId }),
  'opportunity.list': () => ({}),
  'quote.create': (w) => ({
    lead: w.leadId,
    currency: 'EUR',
    lines: [{ description: 'Setup', quantity: 1, unit_amount: 50_000 }],
    valid_until: IN_A_MONTH,
  }),
  'quote.revise': (w) => ({ quote: w.draftQuoteId, currency: 'USD' }),
  'quote.send': (w) => ({ quote: w.draftQuoteId }),
  'quote.get': (w) => ({ quote: w.draftQuoteId }),
  'quote.list': () => ({}),
  'quote.view_page': (w) => ({ token: w.quoteToken }),
  'quote.accept': (w) => ({ token: w.quoteToken, name: 'Ana Lima', consent: true }),
  'quote.decline': (w) => ({ token: w.quoteToken }),
  'invoice.issue': (w) => ({ quote: w.acceptedQuoteId }),
  'invoice.pay': (w) => ({ invoice: w.invoiceId }),
  'invoice.get': (w) => ({ invoice: w.invoiceId }),
  'invoice.list': () => ({}),
  'event.list_types': () => ({}),
  'assistant.connect': (w) => assistantConsent(w.key.owner_user_id),
  'assistant.connections': () => ({}),
  'assistant.disconnect': (w) => ({ id: w.assistantConnectionId }),
  'oauth.clients': () => ({}),
  'oauth.revoke_client': (w) => ({ clientId: w.registeredClientId }),
  'oauth.keys': () => ({}),
  'oauth.rotate_key': () => ({}),
};

describe('every operation, through the one runner', () => {
  let t: TestDatabase;
  let services: Services;
  const cancelled: DeliveryRun[][] = [];
  let a: Populated;
  let b: Populated;
  before(async () => {
    t = await freshDatabase();
    services = testServices(t.db, {
      secretsKey: SECRETS_KEY,
      webhooks: {
        secretsKey: Buffer.alloc(32, 7),
        allowPrivateTargets: true,
        cancelWorkflows: async (deliveries) => {
          cancelled.push(deliveries);
        },
      },
    });
    a = await populated(t.db, services);
    b = await populated(t.db, services);
  });
  after(() => t.drop());

  const keyOf = async (w: Populated) => {
    const auth = await authenticateKey(t.db, w.key.key, undefined);
    if (!auth.ok) throw new Error(auth.reason);
    return keyActor(auth.principal, { door: 'rest', requestId: 'test' });
  };

  it('has an input for every registered operation', () => {
    assert.deepEqual(
      allOperations()
        .map((o) => o.name)
        .filter((n) => !INPUTS[n]),
      [],
    );
  });

  describe("tenancy: a key of workspace A never reaches workspace B's records", () => {
    for (const op of allOperations()) {
      it(`${op.name}: ${op.operatorOnly ? 'forbidden (operator door only)' : op.reach === 'record' ? "B's record is not found" : 'naming B is forbidden'}`, async () => {
        const actor = await keyOf(a);
        const opts: RunOptions = op.reach === 'workspace' ? { workspaceId: b.workspaceId } : {};
        const before = await snapshot(t.db);
        const err = await refusal(runOperation(services, op, actor, INPUTS[op.name]!(b), opts));
        // A gated operation reads its target to say what it would do: another workspace's is not found.
        const expected = op.operatorOnly || op.reach !== 'record' ? 'forbidden' : 'not_found';
        assert.equal(err.code, expected, err.message);
        assert.deepEqual(await snapshot(t.db), before, 'nothing changed');
      });
    }

    it("the operator naming workspace A does not reach B's records either", async () => {
      const before = await snapshot(t.db);
      for (const op of allOperations().filter((o) => o.reach === 'record')) {
        const err = await refusal(
          runOperation(services, op, operatorActor(operator), INPUTS[op.name]!(b), {
            workspaceId: a.workspaceId,
          }),
        );
        assert.equal(err.code, 'not_found', `${op.name}: ${err.message}`);
      }
      assert.deepEqual(await snapshot(t.db), before, 'nothing changed');
    });
  });

  describe('atomicity: when the audit row cannot be written, nothing of the change commits', () => {
    before(async () => {
      await t.db.query(`CREATE TABLE failing_audit_actions (action text PRIMARY KEY)`);
      await t.db.query(`
        CREATE FUNCTION fail_audit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF EXISTS (SELECT 1 FROM failing_audit_actions WHERE action = NEW.action) THEN
            RAISE EXCEPTION 'audit insert failed (injected by the test)';
          END IF;
          RETURN NEW;
        END $$`);
      await t.db.query(
        `CREATE TRIGGER fail_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION fail_audit()`,
      );
    });

    // A decision on a parked request is made in its workflow's own transactions (approval-workflow.test.ts);
    // an operation made of steps commits each step on its own (leads-patch.test.ts).
    for (const op of allOperations().filter((o: AnyOperation) => o.changes && !o.inWorkflow && !o.steps)) {
      it(`${op.name}: rolled back whole, effects after commit not run; then it works`, async () => {
        const w = await populated(t.db, services);
        const opts: RunOptions = op.reach === 'record' ? {} : { workspaceId: w.workspaceId };
        const actor = operatorActor(operator);
        await t.db.query(`INSERT INTO failing_audit_actions VALUES ($1)`, [op.name]);
        const before = await snapshot(t.db);
        cancelled.length = 0;
        await assert.rejects(
          runOperation(services, op, actor, INPUTS[op.name]!(w), op.reach === 'none' ? {} : opts),
          /audit insert failed/,
        );
        assert.deepEqual(await snapshot(t.db), before, 'no change, event or delivery committed');
        assert.deepEqual(cancelled, [], 'no after-commit effect ran');
        // The same call without the fault succeeds and is audited under the operation's name.
        await t.db.query(`DELETE FROM failing_audit_actions`);
        await runOperation(services, op, actor, INPUTS[op.name]!(w), op.reach === 'none' ? {} : opts);
        const [row] = await t.db.query<{ action: string; door: string; outcome: string }[]>(
          `SELECT action, door, outcome FROM audit_log ORDER BY id DESC LIMIT 1`,
        );
        assert.deepEqual(row, { action: op.name, door: 'admin', outcome: 'allowed' });
      });
    }
  });
});
