import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { replyToConversation } from '../../domain/conversations/operations/conversation-reply';
import { issueInboundEmailSecret } from '../../domain/identity/operations/workspace-issue-inbound-email-secret';
import { waitFor } from '../../tooling/processes';
import { startSmtpSink } from '../../tooling/smtp-sink';
import { eventsFor, intakeBody, postLead } from '../helpers/leads';
import {
  deliveryStatusReport,
  feedbackLoopReport,
  mailZone,
  sendingDomain,
  postInbound,
} from '../helpers/mail-dns';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

type Lead = { id: string; email: string };
/** An email of ours the SMTP server took: its row, and the envelope sender it was given (its return path). */
type Sent = { id: string; messageId: string; returnPath: string; lead: Lead };
type ReportRow = { message_id: string | null; proven: boolean; proof: string | null; reason: string | null };

const NOT_DELIVERED = 'it was not delivered to a return path of ours';
const NO_FEEDBACK_LOOP = `${NOT_DELIVERED}, and it is no signed complaint from a feedback loop on MAIL_FEEDBACK_DOMAINS`;

/**
 * Bounce and complaint reports through the real inbound route, against emails the worker really sent:
 * a report changes something only when it proves it answers an email of ours (delivered to that
 * email's return path, or a complaint signed by a configured feedback loop) and names the recipient
 * the email went to. Anyone can sign for a domain of their own and learn a Message-ID, so the
 * forgeries below are signed where it helps them, and every one is stored, unproven, with its reason.
 */
describe('mail reports: a bounce or complaint acts only when it proves it answers an email of ours', () => {
  const zone = mailZone();
  const customer = sendingDomain(zone, 'customer.example');
  const attacker = sendingDomain(zone, 'attacker.example', { dmarc: null });
  const freemail = sendingDomain(zone, 'freemail.example');
  const fbl = sendingDomain(zone, 'fbl.example');
  let s: WebhookStack;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let rx: Receiver;
  let inbound: { secret: string; path: string };

  before(async () => {
    smtp = await startSmtpSink();
    s = await startWebhookStack({
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'hello@acme.example', MAIL_FEEDBACK_DOMAINS: 'fbl.example' },
      mailResolver: zone.resolver,
    });
    rx = await startReceiver();
    await s.endpoint(rx, ['contact.suppressed']);
    inbound = await s.run(issueInboundEmailSecret, {}, { workspaceId: s.workspace.id });
  });
  after(async () => {
    await s.stop();
    await rx.close();
    await smtp.stop();
  });

  const post = (raw: string, headers: Record<string, string> = {}) =>
    postInbound(s.app, inbound, raw, headers);
  /** A lead, emailed by the service; what the SMTP server was handed, as a receiving MX would see it. */
  const sentEmail = async (): Promise<Sent> => {
    const email = `ana.${randomUUID().slice(0, 8)}@customer.example`;
    const res = await postLead(s.app, s.key, intakeBody({ email }));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const lead = res.body.data as Lead;
    const queued = (await s.run(replyToConversation, {
      leadId: lead.id,
      channel: 'email',
      body: 'Did this arrive?',
    })) as { id: string };
    const row = await waitFor(
      `message ${queued.id} sent`,
      async () =>
        (
          await s.db.query<{ provider_message_id: string }[]>(
            `SELECT provider_message_id FROM messages WHERE id = $1 AND status = 'sent'`,
            [queued.id],
          )
        )[0],
      20_000,
      50,
    );
    const got = smtp.received.find((r) => r.mail.messageId === row.provider_message_id);
    assert.ok(got, 'the SMTP server has it');
    return { id: queued.id, messageId: row.provider_message_id, returnPath: got.from, lead };
  };
  const messageState = async (id: string) =>
    (
      await s.db.query<{ status: string; feedback: string | null }[]>(
        `SELECT status, feedback FROM messages WHERE id = $1`,
        [id],
      )
    )[0]!;
  const suppressions = (address: string) =>
    s.db.query<{ reason: string; source: string }[]>(
      `SELECT reason, source FROM suppressions WHERE workspace_id = $1 AND address = $2`,
      [s.workspace.id, address],
    );
  /** The stored report, by the report's own Message-ID. */
  const reportRow = async (raw: string) => {
    const id = /^Message-ID: (<[^>]+>)/im.exec(raw)![1]!;
    const rows = await s.db.query<ReportRow[]>(
      `SELECT message_id, proven, proof, reason FROM mail_reports WHERE workspace_id = $1 AND report_message_id = $2`,
      [s.workspace.id, id],
    );
    assert.equal(rows.length, 1, `stored once: ${id}`);
    return rows[0]!;
  };
  const auditOf = async (action: string, messageId: string) =>
    s.db.query<{ details: Record<string, unknown> }[]>(
      `SELECT details FROM audit_log WHERE action = $1 AND details->>'message_id' = $2 ORDER BY id`,
      [action, messageId],
    );
  /** Posts each report and checks it is answered, stored and audited as unproven, for `why`. */
  const refused = async (
    action: 'message.bounce' | 'message.complaint',
    sent: Sent,
    cases: { raw: string; headers?: Record<string, string>; why: string; messageId?: string | null }[],
  ) => {
    for (const c of cases) {
      const res = await post(c.raw, c.headers);
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const messageId = c.messageId === undefined ? sent.id : c.messageId;
      assert.equal(res.body.data.recorded, false, c.why);
      assert.equal(res.body.data.proven, false, c.why);
      assert.equal(res.body.data.message_id, messageId, c.why);
      assert.deepEqual(await reportRow(c.raw), {
        message_id: messageId,
        proven: false,
        proof: null,
        reason: c.why,
      });
      if (messageId) {
        const audited = (await auditOf(action, messageId)).map((a) => a.details);
        assert.deepEqual(
          [audited.at(-1)?.unproven, audited.at(-1)?.recorded],
          [c.why, false],
          'audited with the reason',
        );
      }
    }
    assert.deepEqual(await suppressions(sent.lead.email), [], 'nothing suppressed');
    assert.deepEqual(
      await messageState(sent.id),
      { status: 'sent', feedback: null },
      'nothing fed the brake',
    );
  };

  it('forged delivery reports change nothing and are stored unproven, each with its reason', async () => {
    const sent = await sentEmail();
    const other = await sentEmail();
    const dsn = (over: Partial<Parameters<typeof deliveryStatusReport>[0]>) =>
      deliveryStatusReport({
        messageId: sent.messageId,
        recipient: sent.lead.email,
        mx: 'mx.customer.example',
        ...over,
      });
    const tampered = sent.returnPath.replace(/\.([0-9a-f])/, (_, c: string) => `.${c === '0' ? '1' : '0'}`);
    assert.notEqual(tampered, sent.returnPath);
    await refused('message.bounce', sent, [
      {
        // What the issue found recorded: signed by a stranger's domain, its own MAILER-DAEMON, no Final-Recipient.
        raw: await attacker.sign(dsn({ mx: 'attacker.example', recipient: null })),
        why: NOT_DELIVERED,
      },
      { raw: dsn({}), why: NOT_DELIVERED },
      // Signed by the lead's own domain and naming the right recipient: still not proof of anything.
      { raw: await customer.sign(dsn({})), why: NOT_DELIVERED },
      {
        raw: dsn({ to: sent.returnPath, recipient: 'someone.else@customer.example' }),
        why: 'it names another recipient than the email went to',
      },
      { raw: dsn({ to: sent.returnPath, recipient: null }), why: 'it does not name the recipient' },
      { raw: dsn({ to: tampered }), why: "its return path's MAC is wrong" },
      {
        // Another email's genuine return path, the forwarder's envelope saying so.
        raw: dsn({}),
        headers: { 'X-Envelope-To': other.returnPath },
        why: 'its return path is for another email than the one it names',
        messageId: other.id,
      },
      {
        // The forwarder's envelope is where it was delivered; a To header cannot overrule it.
        raw: dsn({ to: sent.returnPath }),
        headers: { 'X-Envelope-To': 'hello@acme.example' },
        why: NOT_DELIVERED,
      },
      {
        raw: dsn({ messageId: `<${randomUUID()}@acme.example>`, to: sent.returnPath }),
        why: 'its return path is for another email than the one it names',
      },
      {
        raw: deliveryStatusReport({
          messageId: `<${randomUUID()}@acme.example>`,
          recipient: sent.lead.email,
          mx: 'mx.customer.example',
        }),
        why: 'it names no email we sent',
        messageId: null,
      },
    ]);
    assert.deepEqual(await messageState(other.id), { status: 'sent', feedback: null });
  });

  it('a bounce delivered to the return path of a real email suppresses the address, once', async () => {
    const sent = await sentEmail();
    assert.match(sent.returnPath, /^bounces\+[0-9a-f]{32}\.[0-9a-f]{20}@acme\.example$/);
    const dsn = (status: string) =>
      deliveryStatusReport({
        messageId: sent.messageId,
        recipient: sent.lead.email,
        mx: 'mx.customer.example',
        status,
        to: sent.returnPath,
      });
    const delay = dsn('4.4.1');
    const delayed = await post(delay);
    assert.equal(delayed.status, 202, JSON.stringify(delayed.body));
    assert.deepEqual(
      [delayed.body.data.proven, delayed.body.data.recorded],
      [true, false],
      'a delay is proven, and changes nothing',
    );
    assert.deepEqual(await reportRow(delay), {
      message_id: sent.id,
      proven: true,
      proof: 'verp',
      reason: null,
    });
    assert.deepEqual(await messageState(sent.id), { status: 'sent', feedback: null });

    // Unsigned, as most MTAs send them: the return path is the proof. Here the forwarder gives the envelope.
    const bounce = deliveryStatusReport({
      messageId: sent.messageId,
      recipient: sent.lead.email,
      mx: 'mx.customer.example',
    });
    const res = await post(bounce, { 'X-Envelope-To': `<${sent.returnPath.toUpperCase()}>` });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.deepEqual(res.body.data, {
      message_id: sent.id,
      bounced: true,
      status: '5.1.1',
      proven: true,
      recorded: true,
    });
    assert.deepEqual(await reportRow(bounce), {
      message_id: sent.id,
      proven: true,
      proof: 'verp',
      reason: null,
    });
    assert.deepEqual(await suppressions(sent.lead.email), [{ reason: 'bounce', source: 'bounce report' }]);
    assert.deepEqual(await messageState(sent.id), { status: 'bounced', feedback: 'hard_bounce' });
    const event = await rx.eventOf('contact.suppressed', (d) => d.lead_id === sent.lead.id);
    assert.deepEqual([event.data.reason, event.data.source], ['bounce', 'bounce report']);

    const replayed = await post(bounce, { 'X-Envelope-To': sent.returnPath });
    assert.equal(replayed.body.data.recorded, false, 'a replay acts once');
    await reportRow(bounce); // and is stored once
    const another = await post(dsn('5.1.1'));
    assert.deepEqual([another.body.data.proven, another.body.data.recorded], [true, false], 'once');
    const suppressed = (await eventsFor(s.db, sent.lead.id)).filter((e) => e.type === 'contact.suppressed');
    assert.equal(suppressed.length, 1, 'one contact.suppressed');
    const audited = (await auditOf('message.bounce', sent.id)).map((a) => a.details);
    assert.deepEqual(
      audited.map((d) => [d.proof, d.recorded, d.replayed ?? false]),
      [
        ['verp', false, false],
        ['verp', true, false],
        ['verp', false, true],
        ['verp', false, false],
      ],
    );
  });

  it('forged complaints change nothing; one signed by a configured feedback loop, or sent to the return path, suppresses', async () => {
    const sent = await sentEmail();
    const arf = (over: Partial<Parameters<typeof feedbackLoopReport>[0]>) =>
      feedbackLoopReport({
        messageId: sent.messageId,
        recipient: sent.lead.email,
        from: 'fbl@fbl.example',
        ...over,
      });
    await refused('message.complaint', sent, [
      {
        // What the issue found recorded: signed by an unrelated mailbox provider, no Original-Rcpt-To.
        raw: await freemail.sign(arf({ from: 'abuse@freemail.example', recipient: null })),
        why: NO_FEEDBACK_LOOP,
      },
      { raw: arf({}), why: NO_FEEDBACK_LOOP },
      // From the feedback loop's domain, but signed by another.
      { raw: await attacker.sign(arf({})), why: NO_FEEDBACK_LOOP },
      // Signed by the feedback loop, but a signature that leaves From out proves nothing of the sender.
      { raw: await fbl.sign(arf({}), { headerList: 'to:subject:message-id' }), why: NO_FEEDBACK_LOOP },
      {
        raw: await fbl.sign(arf({ recipient: 'someone.else@customer.example' })),
        why: 'it names another recipient than the email went to',
      },
      { raw: await fbl.sign(arf({ recipient: null })), why: 'it does not name the recipient' },
    ]);

    const proven = await fbl.sign(arf({}));
    const res = await post(proven);
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.deepEqual(res.body.data, {
      message_id: sent.id,
      feedback_type: 'abuse',
      proven: true,
      recorded: true,
    });
    assert.deepEqual(await reportRow(proven), {
      message_id: sent.id,
      proven: true,
      proof: 'feedback_domain',
      reason: null,
    });
    assert.deepEqual(await suppressions(sent.lead.email), [
      { reason: 'complaint', source: 'complaint report' },
    ]);
    assert.equal((await messageState(sent.id)).feedback, 'complaint');
    const event = await rx.eventOf('contact.suppressed', (d) => d.lead_id === sent.lead.id);
    assert.equal(event.data.reason, 'complaint');
    assert.equal((await post(await fbl.sign(arf({})))).body.data.recorded, false, 'once');

    // A provider not on the list: its report, sent to the return path, proves itself the same way.
    const second = await sentEmail();
    const viaReturnPath = feedbackLoopReport({
      messageId: second.messageId,
      recipient: second.lead.email,
      from: 'abuse@freemail.example',
      to: second.returnPath,
    });
    const byPath = await post(viaReturnPath);
    assert.deepEqual(byPath.body.data, {
      message_id: second.id,
      feedback_type: 'abuse',
      proven: true,
      recorded: true,
    });
    assert.equal((await reportRow(viaReturnPath)).proof, 'verp');
    assert.deepEqual(await suppressions(second.lead.email), [
      { reason: 'complaint', source: 'complaint report' },
    ]);
  });
});
