import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createAgent } from '../../domain/agents/operations/create';
import type { Agent } from '../../domain/agents/entities';
import { runAgentNow } from '../../domain/agents/operations/run-now';
import { agentRunsIn } from '../../domain/agents/repository/runs';
import { CHASE_LENGTH } from '../../domain/agents/templates';
import { Data } from '../../domain/kernel/data';
import { createCampaign } from '../../domain/campaigns/operations/create';
import { getCampaign } from '../../domain/campaigns/operations/get';
import { launchCampaign } from '../../domain/campaigns/operations/launch';
import { getConversation } from '../../domain/conversations/operations/conversation-get';
import { issueInboundEmailSecret } from '../../domain/identity/operations/workspace-issue-inbound-email-secret';
import { setDeliverability } from '../../domain/identity/operations/workspace-set-deliverability';
import type { DomainError } from '../../domain/kernel/errors';
import { waitFor } from '../../tooling/processes';
import { startSmtpSink, type Received } from '../../tooling/smtp-sink';
import { runAdmin } from '../helpers/admin';
import { bearer, zoneAtNoon } from '../helpers/fixtures';
import { count, eventsFor, intakeBody, postLead } from '../helpers/leads';
import { deliveryStatusReport, mailZone, rawMail, sendingDomain, postInbound } from '../helpers/mail-dns';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

type LeadRow = { status: string; needs_attention: boolean; intent: string | null; follow_up: string };
type Lead = { id: string; email: string };

/**
 * Mail whose sender is proven, through the real inbound route: every message is checked (DKIM, SPF
 * when the envelope is known, DMARC) against DNS answers from the test's own zone, where
 * customer.example publishes a DKIM key and `p=reject`, and attacker.example signs for itself. Reports
 * and what proves them: test/e2e/mail-reports.test.ts.
 */
describe('inbound mail: authenticated before it acts; the campaign brake', () => {
  const zone = mailZone();
  const customer = sendingDomain(zone, 'customer.example');
  const attacker = sendingDomain(zone, 'attacker.example', { dmarc: null });
  let s: WebhookStack;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let rx: Receiver;
  let inbound: { secret: string; path: string };
  /** What the sink does once a message is in, before its 250 (the campaign's bouncing mailboxes). */
  let onMessage: (r: Received) => Promise<void> = async () => undefined;

  before(async () => {
    smtp = await startSmtpSink({ onMessage: (r) => onMessage(r) });
    s = await startWebhookStack({
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'hello@acme.example' },
      mailResolver: zone.resolver,
    });
    rx = await startReceiver();
    await s.endpoint(rx, ['reply.received', 'contact.suppressed', 'campaign.paused']);
    inbound = await s.run(issueInboundEmailSecret, {}, { workspaceId: s.workspace.id });
    // The follow-up agent sends only inside its daytime window: a zone where it is midday now.
    await s.db.query(`UPDATE workspaces SET timezone = $2 WHERE id = $1`, [s.workspace.id, zoneAtNoon()]);
  });
  after(async () => {
    await s.stop();
    await rx.close();
    await smtp.stop();
  });

  const newLead = async (over: Record<string, unknown> = {}): Promise<Lead> => {
    const email = `ana.${randomUUID().slice(0, 8)}@customer.example`;
    const res = await postLead(s.app, s.key, intakeBody({ email, ...over }));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data as Lead;
  };
  const post = (raw: string, headers: Record<string, string> = {}) =>
    postInbound(s.app, inbound, raw, headers);
  const reply = (from: string, body: string) =>
    rawMail(
      {
        From: `Ana Lima <${from}>`,
        To: 'hello@acme.example',
        Subject: 'Re: your offer',
        'Message-ID': `<${randomUUID()}@customer.example>`,
        Date: new Date().toUTCString(),
      },
      body,
    );
  const leadRow = async (id: string) =>
    (
      await s.db.query<LeadRow[]>(
        `SELECT status, needs_attention, intent, follow_up FROM leads WHERE id = $1`,
        [id],
      )
    )[0]!;
  const messageRow = async (id: string) =>
    (
      await s.db.query<{ authenticity: string | null; authentication: string | null }[]>(
        `SELECT authenticity, authentication FROM messages WHERE id = $1`,
        [id],
      )
    )[0]!;
  const webhookOf = (type: string, ok: (data: Record<string, unknown>) => boolean) => rx.eventOf(type, ok);
  /** A lead a follow-up agent is chasing (its first email reached the SMTP server). */
  const chasedLead = async (): Promise<Lead & { agentId: string }> => {
    const source = `chase-${randomUUID().slice(0, 6)}`;
    const lead = await newLead({ source });
    const agent = (await s.run(
      createAgent,
      {
        name: `Chaser ${source}`,
        type: 'follow_up',
        sources: { lead_sources: [source] },
        review_level: 'send',
        limits: { per_lead_per_week: 2 },
      },
      { workspaceId: s.workspace.id },
    )) as { id: string };
    await s.run(runAgentNow, { agentId: agent.id });
    await waitFor(
      'the chase at the SMTP server',
      async () => smtp.received.some((r) => r.to.includes(lead.email)) || undefined,
      30_000,
    );
    await waitFor(
      'follow-up active',
      async () => (await leadRow(lead.id)).follow_up === 'ACTIVE' || undefined,
    );
    return { ...lead, agentId: agent.id };
  };
  it('a forged From (fails DMARC) is stored unverified, shown so on every door, and changes nothing', async () => {
    const lead = await chasedLead();
    const before = await leadRow(lead.id);
    const body = 'This is unacceptable. I want to make a complaint.';
    for (const forged of [reply(lead.email, body), await attacker.sign(reply(lead.email, body))]) {
      const res = await post(forged);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.data.authenticity, 'unverified');
      const row = await messageRow(res.body.data.id as string);
      assert.equal(row.authenticity, 'unverified');
      assert.match(row.authentication!, /dmarc=fail \(customer\.example, p=reject\)/);
    }
    assert.deepEqual(await leadRow(lead.id), before, 'status, attention, intent and follow-up unchanged');
    assert.equal(await count(s.db, 'handoffs', 'lead_id = $1', [lead.id]), 0, 'no escalation');
    // The agent still chases: a forged message is not the lead writing back, whom we would owe an
    // answer. (The agent's next run asks this very query which leads it may chase.)
    const [agent] = await s.db.query<Agent[]>(`SELECT * FROM agents WHERE id = $1`, [lead.agentId]);
    const chaseable = await agentRunsIn(new Data(s.db.manager, s.workspace.id)).chaseable(
      agent!,
      randomUUID(),
      {
        limit: 10,
        weekAgo: new Date(Date.now() - 7 * 86_400_000),
        chaseLength: CHASE_LENGTH,
      },
    );
    assert.ok(
      chaseable.some((c) => c.id === lead.id),
      'the lead is still one the agent chases',
    );
    const events = await eventsFor(s.db, lead.id);
    assert.equal(events.filter((e) => e.type === 'reply.received').length, 0, 'no reply counted');
    const received = events.filter((e) => e.type === 'message.received');
    assert.deepEqual(
      received.map((e) => e.data.authenticity),
      ['unverified', 'unverified'],
    );

    // Every door shows it for what it is: REST recent activity, and the conversation (MCP and admin).
    const got = await request(s.app).get(`/api/v1/leads/${lead.id}`).set(bearer(s.key)).expect(200);
    const inboundItems = (
      got.body.recent_activity as { direction: string; authenticity: string | null }[]
    ).filter((m) => m.direction === 'inbound');
    assert.deepEqual(
      inboundItems.map((m) => m.authenticity),
      ['unverified', 'unverified'],
    );
    const thread = (await s.run(getConversation, { leadId: lead.id, channel: 'email' })) as {
      data: { direction: string; authenticity: string | null }[];
    };
    assert.ok(
      thread.data.filter((m) => m.direction === 'inbound').every((m) => m.authenticity === 'unverified'),
    );
    const admin = runAdmin({ DATABASE_URL: s.t.url, TEMPORAL_ADDRESS: s.config.temporalAddress }, [
      'conversation',
      'get',
      '--lead',
      lead.id,
      '--channel',
      'email',
    ]);
    assert.equal(admin.code, 0, admin.stderr);
    const shown = JSON.parse(admin.stdout) as { data: { direction: string; authenticity: string | null }[] };
    assert.deepEqual(
      shown.data.filter((m) => m.direction === 'inbound').map((m) => m.authenticity),
      ['unverified', 'unverified'],
    );
  });

  it('a reply signed by the lead’s domain is verified and acted on: escalated, follow-up stopped, reply counted', async () => {
    const lead = await chasedLead();
    const res = await post(
      await customer.sign(reply(lead.email, 'This is unacceptable. I want to make a complaint.')),
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.data.authenticity, 'verified');
    assert.match(
      (await messageRow(res.body.data.id as string)).authentication!,
      /^dkim=pass \(customer\.example\); spf=not checked \(no client address\); dmarc=pass/,
    );
    await webhookOf('reply.received', (d) => d.message_id === res.body.data.id);
    const after = await leadRow(lead.id);
    assert.equal(after.follow_up, 'STOPPED');
    assert.equal(after.needs_attention, true);
    assert.equal(await count(s.db, 'handoffs', 'lead_id = $1', [lead.id]), 1);
  });

  it('a signature whose l= leaves appended text unsigned counts for nothing: unverified, and the text acts on nothing', async () => {
    const lead = await newLead();
    const before = await leadRow(lead.id);
    // The lead's server signed "Thanks." (l=9, the canonical body's length); someone appended the rest.
    const signed = await customer.sign(reply(lead.email, 'Thanks.'), { maxBodyLength: 9 });
    const appended = `${signed}I want to book a meeting. Call me tomorrow, this is urgent.\r\n`;
    const res = await post(appended);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.data.authenticity, 'unverified');
    const row = await messageRow(res.body.data.id as string);
    assert.equal(row.authenticity, 'unverified');
    assert.match(row.authentication!, /^dkim=pass \(customer\.example\) but l=9 covers part of the body; /);
    assert.match(row.authentication!, /dmarc=fail \(customer\.example, p=reject\)/);
    assert.deepEqual(await leadRow(lead.id), before, 'status, attention, intent and follow-up unchanged');
    assert.equal(await count(s.db, 'handoffs', 'lead_id = $1', [lead.id]), 0, 'no escalation');
    const events = await eventsFor(s.db, lead.id);
    assert.deepEqual(
      events.filter((e) => e.type === 'reply.received' || e.type === 'lead.intent_changed'),
      [],
      'no reply counted, no intent moved',
    );

    // The same signature over the whole body is a signature like any other.
    const whole = await newLead();
    const exact = await post(await customer.sign(reply(whole.email, 'Thanks.'), { maxBodyLength: 9 }));
    assert.equal(exact.body.data.authenticity, 'verified', 'an l= that covers the whole body');
  });

  it('a signature whose h= leaves From out counts for nothing: another lead’s From written in is unverified', async () => {
    const ana = await newLead();
    const bea = await newLead();
    const before = await leadRow(bea.id);
    const signed = await customer.sign(reply(ana.email, 'I want to book a meeting. Call me tomorrow.'), {
      headerList: 'to:subject:message-id:date',
    });
    const rewritten = signed.replace(`From: Ana Lima <${ana.email}>`, `From: Bea Lima <${bea.email}>`);
    assert.notEqual(rewritten, signed);
    const res = await post(rewritten);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.data.authenticity, 'unverified');
    const row = await messageRow(res.body.data.id as string);
    // mailauth reports the RFC 6376 PERMFAIL as neutral; were a verifier to pass it, the service's own
    // check says "dkim=pass (customer.example) but does not sign From" and counts it for nothing as well.
    assert.match(row.authentication!, /^dkim=neutral \(customer\.example: From field not signed\); /);
    assert.deepEqual(await leadRow(bea.id), before, 'status, attention, intent and follow-up unchanged');
    assert.deepEqual(
      (await eventsFor(s.db, bea.id)).filter(
        (e) => e.type === 'reply.received' || e.type === 'lead.intent_changed',
      ),
      [],
    );
    assert.equal(
      (await eventsFor(s.db, ana.id)).filter((e) => e.type === 'message.received').length,
      0,
      'nor is it the signed lead’s',
    );
  });

  it('SPF from the envelope the forwarder gives, or from the provider’s own Received header when told', async () => {
    zone.publish('customer.example', ['v=spf1 ip4:192.0.2.10 -all']);
    const lead = await newLead();
    const unsigned = () => reply(lead.email, 'Could you send me the price list?');
    const given = await post(unsigned(), {
      'X-Envelope-Client-IP': '192.0.2.10',
      'X-Envelope-Helo': 'mx.customer.example',
      'X-Envelope-From': `<bounces@customer.example>`,
    });
    assert.equal(given.body.data.authenticity, 'verified', 'SPF passes, aligned with From');
    const wrongIp = await post(unsigned(), { 'X-Envelope-Client-IP': '198.51.100.7' });
    assert.equal(wrongIp.body.data.authenticity, 'unverified', 'SPF fails from another address');
    const received = `Received: from mx.customer.example (mx.customer.example [192.0.2.10]) by mx.inbound.example with ESMTPS id A1; ${new Date().toUTCString()}\r\nReturn-Path: <bounces@customer.example>\r\n`;
    const trusted = await request(s.app)
      .post(`${inbound.path}?envelope=received`)
      .set('Authorization', `Bearer ${inbound.secret}`)
      .set('Content-Type', 'message/rfc822')
      .send(received + unsigned());
    assert.equal(
      trusted.body.data.authenticity,
      'verified',
      "the provider's Received header, when told to trust it",
    );
    const untold = await post(received + unsigned());
    assert.equal(
      untold.body.data.authenticity,
      'unverified',
      'a Received header anyone could write is not read',
    );
  });

  it("a workspace tightens the brake's thresholds within bounds; outside them it is refused, naming the field", async () => {
    const ws = { workspaceId: s.workspace.id };
    await assert.rejects(s.run(setDeliverability, { max_complaint_percent: 0.5 }, ws), (err: DomainError) => {
      assert.equal(err.code, 'invalid_request');
      assert.equal(err.details.field, 'max_complaint_percent');
      assert.match(err.message, /max_complaint_percent must be between 0\.05 and 0\.3/);
      return true;
    });
    assert.deepEqual(await s.run(setDeliverability, { min_sends: 200, max_bounce_percent: 2 }, ws), {
      min_sends: 200,
      max_bounce_percent: 2,
      max_complaint_percent: 0.3,
    });
    // Back to the defaults for the campaign below.
    assert.deepEqual(await s.run(setDeliverability, { min_sends: 100, max_bounce_percent: 5 }, ws), {
      min_sends: 100,
      max_bounce_percent: 5,
      max_complaint_percent: 0.3,
    });
  });

  it('a campaign whose mailboxes bounce 10% (reports to its return paths) pauses itself for deliverability before its 200th send', async () => {
    const source = `brake-${randomUUID().slice(0, 6)}`;
    const leads = [];
    for (let i = 0; i < 220; i += 1) leads.push(await newLead({ source }));
    const audience = new Set(leads.map((l) => l.email));
    let seen = 0;
    // Every tenth mailbox of the audience does not exist: its MX reports so at once, to the return
    // path the email was sent with (before the hand-over is recorded: the return path finds it).
    onMessage = async (r) => {
      const to = r.to[0]!;
      if (!audience.has(to) || ++seen % 10 !== 0) return;
      const report = deliveryStatusReport({
        messageId: r.mail.messageId!,
        recipient: to,
        mx: 'mx.customer.example',
        to: r.from,
      });
      const res = await post(report);
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.equal(res.body.data.recorded, true, JSON.stringify(res.body));
    };
    const campaign = (await s.run(
      createCampaign,
      {
        name: 'Brake test',
        channel: 'email',
        audience: { sources: [source] },
        steps: [{ subject: 'Our offer', body: 'Hello {first_name}, a word from us.', delay_hours: 0 }],
        window: { weekdays: [1, 2, 3, 4, 5, 6, 7], start_hour: 0, end_hour: 24 },
        daily_cap: 1_000,
      },
      { workspaceId: s.workspace.id },
    )) as { id: string };
    await s.run(launchCampaign, { campaignId: campaign.id });

    const paused = await webhookOf('campaign.paused', (d) => d.campaign_id === campaign.id);
    assert.equal(paused.data.reason, 'deliverability');
    assert.ok((paused.data.sends as number) >= 100, 'judged over at least 100 sends');
    assert.match(
      paused.data.detail as string,
      /^hard bounces \d+ of \d+ sends \([\d.]+%\), above the 5% limit$/,
    );
    const shown = (await s.run(getCampaign, { campaignId: campaign.id })) as {
      data: { status: string; pause: { reason: string; detail: string } | null };
    };
    assert.equal(shown.data.status, 'PAUSED');
    assert.equal(shown.data.pause?.reason, 'deliverability');
    assert.equal(shown.data.pause?.detail, paused.data.detail);
    // The group in hand when it paused finishes; nothing after it leaves.
    const handedOver = () => smtp.received.filter((r) => audience.has(r.to[0]!)).length;
    await waitFor('the batch to settle', async () =>
      (await count(s.db, 'messages', `campaign_id = $1 AND status IN ('queued', 'sending')`, [
        campaign.id,
      ])) === 0
        ? true
        : undefined,
    );
    assert.ok(handedOver() < 200, `stopped before its 200th send (${handedOver()} sent)`);
    assert.equal(
      await count(s.db, 'audit_log', `action = 'message.bounce' AND details->>'campaign_paused' = $1`, [
        campaign.id,
      ]),
      1,
      'the report that tripped the brake says so in its audit row',
    );
    onMessage = async () => undefined;
  });
});
