import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { replyToConversation } from '../../domain/conversations/operations/conversation-reply';
import { issueInboundEmailSecret } from '../../domain/identity/operations/workspace-issue-inbound-email-secret';
import { twilioSignature } from '../../api/public/twilio-signature';
import { startSmsSink } from '../../tooling/sms-sink';
import { waitFor } from '../../tooling/processes';
import { bearer } from '../helpers/fixtures';
import { count, eventsFor, intakeBody, postLead } from '../helpers/leads';
import { deliveryStatusReport, mailZone, sendingDomain } from '../helpers/mail-dns';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startSmtpSink, type Received } from '../../tooling/smtp-sink';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

type MessageRow = {
  id: string;
  status: string;
  attempts: number;
  error: string | null;
  provider_message_id: string | null;
};

/** The List-Unsubscribe URL, from the header as sent (unfolded: a long header spans lines). */
const unsubscribeUrl = (r: Received) =>
  /^List-Unsubscribe: <([^>]+)>/m.exec(r.raw.split('\r\n\r\n')[0]!.replace(/\r\n[ \t]+/g, ' '))?.[1];

const SID = 'ACtest0000000000000000000000000000';
const TOKEN = 'sms-auth-token-for-tests';
const PUBLIC_URL = 'https://leads.example.test';

describe('channels: messages that really leave, opt-outs, and what providers report', () => {
  let s: WebhookStack;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let sms: Awaited<ReturnType<typeof startSmsSink>>;
  let rx: Receiver;
  let phones = 0;
  // The leads' domain signs its mail (test/e2e/inbound-mail.test.ts tries forgeries).
  const zone = mailZone();
  const leadsDomain = sendingDomain(zone, 'example.com');

  before(async () => {
    smtp = await startSmtpSink();
    sms = await startSmsSink({ accountSid: SID, authToken: TOKEN });
    s = await startWebhookStack({
      mailResolver: zone.resolver,
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'hello@acme.example',
        SMS_API_URL: sms.url,
        SMS_ACCOUNT_SID: SID,
        SMS_AUTH_TOKEN: TOKEN,
        SMS_FROM: '+15550000001',
        PUBLIC_URL,
      },
    });
    rx = await startReceiver();
    await s.endpoint(rx, [
      'contact.unsubscribed',
      'contact.suppressed',
      'message.received',
      'reply.received',
    ]);
  });
  after(async () => {
    await s.stop();
    await rx.close();
    await smtp.stop();
    await sms.stop();
  });

  const newLead = async (over: Record<string, unknown> = {}) => {
    const res = await postLead(s.app, s.key, intakeBody(over));
    assert.equal(res.status, 201);
    return res.body.data as { id: string; email: string | null; phone: string | null };
  };
  const newPhone = () => `+1555${String(1_000_000 + ++phones).slice(1)}${Math.floor(Math.random() * 9)}`;
  const reply = (leadId: string, channel: string, body: string, extra: Record<string, unknown> = {}) =>
    s.run(replyToConversation, { leadId, channel, body, ...extra });
  const settled = (
    id: string,
    ok: (m: MessageRow) => boolean = (m) => !['queued', 'sending'].includes(m.status),
  ) =>
    waitFor(
      `message ${id} settled`,
      async () => {
        const [m] = await s.db.query<MessageRow[]>(`SELECT * FROM messages WHERE id = $1`, [id]);
        return m && ok(m) ? m : undefined;
      },
      20_000,
      50,
    );
  const mailTo = (address: string) =>
    waitFor(`mail to ${address}`, async () => smtp.received.find((r) => r.to.includes(address)), 20_000, 50);
  const webhookOf = (type: string, ok: (data: Record<string, unknown>) => boolean) => rx.eventOf(type, ok);
  const signedSms = (path: string, params: Record<string, string>, token = TOKEN) => {
    const form = new URLSearchParams(params);
    return request(s.app)
      .post(path)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .set('X-Twilio-Signature', twilioSignature(token, PUBLIC_URL + path, form))
      .send(form.toString());
  };

  it('sends a reply over SMTP with a Message-ID, one-click List-Unsubscribe headers and the workspace as sender', async () => {
    const lead = await newLead();
    const queued = await reply(lead.id, 'email', 'Thanks for asking: Tuesday works.', {
      subject: 'Your visit',
    });
    assert.equal(queued.status, 'queued');
    const sent = await settled(queued.id);
    assert.equal(sent.status, 'sent');
    assert.equal(sent.attempts, 1);
    const got = await mailTo(lead.email!);
    // The Message-ID's left part is random, kept on the message; the message's id is in no header.
    const [{ mail_id }] = await s.db.query<[{ mail_id: string }]>(
      `SELECT mail_id FROM messages WHERE id = $1`,
      [queued.id],
    );
    assert.notEqual(mail_id, queued.id);
    assert.equal(got.mail.messageId, `<${mail_id}@acme.example>`);
    assert.ok(!got.raw.split('\r\n\r\n')[0]!.includes(queued.id), 'no header names the message id');
    assert.equal(sent.provider_message_id, got.mail.messageId);
    // The envelope sender is the message's own return path, where a bounce about it comes back.
    assert.match(got.from, /^bounces\+[0-9a-f]{32}\.[0-9a-f]{20}@acme\.example$/);
    assert.equal(got.mail.subject, 'Your visit');
    assert.equal(got.mail.text?.trim(), 'Thanks for asking: Tuesday works.');
    assert.equal(got.mail.from?.value[0]?.address, 'hello@acme.example');
    assert.equal(got.mail.from?.value[0]?.name, s.workspace.name);
    assert.match(got.raw, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
    const listUnsubscribe = unsubscribeUrl(got);
    assert.ok(
      listUnsubscribe?.startsWith(`${PUBLIC_URL}/u/`),
      `List-Unsubscribe names our link: ${listUnsubscribe}`,
    );
  });

  it("unsubscribes at once on the link's POST (RFC 8058), once, with a page that works without JavaScript", async () => {
    const lead = await newLead();
    const queued = await reply(lead.id, 'email', 'Hello again');
    await settled(queued.id);
    const got = await mailTo(lead.email!);
    const link = new URL(unsubscribeUrl(got)!);

    const page = await request(s.app).get(link.pathname).expect(200);
    assert.match(page.headers['content-type'] ?? '', /text\/html/);
    assert.match(page.text, /<form method="post" action="\/u\/[A-Za-z0-9_-]+">/);
    assert.doesNotMatch(page.text, /<script/i);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.equal(await count(s.db, 'suppressions', 'address = $1', [lead.email]), 0, 'GET changes nothing');

    await request(s.app).post(link.pathname).type('form').send('List-Unsubscribe=One-Click').expect(200);
    const [sup] = await s.db.query(`SELECT * FROM suppressions WHERE address = $1`, [lead.email]);
    assert.equal(sup.reason, 'unsubscribed');
    assert.equal(sup.channel, 'email');
    const event = await webhookOf('contact.unsubscribed', (d) => d.lead_id === lead.id);
    assert.deepEqual(
      { ...event.data, occurred_at: undefined },
      {
        subject_type: 'lead',
        subject_id: lead.id,
        occurred_at: undefined,
        lead_id: lead.id,
        suppression_id: sup.id,
        channel: 'email',
        reason: 'unsubscribed',
        source: 'unsubscribe link',
      },
    );
    await request(s.app).post(link.pathname).type('form').send('List-Unsubscribe=One-Click').expect(200);
    const events = (await eventsFor(s.db, lead.id)).filter((e) => e.type === 'contact.unsubscribed');
    assert.equal(events.length, 1, 'a second click emits nothing');

    await assert.rejects(reply(lead.id, 'email', 'Still there?'), { code: 'suppressed' });
    const again = await postLead(s.app, s.key, intakeBody({ email: lead.email }));
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'suppressed');
  });

  it("an unsubscribe link unsubscribes the address it was sent to, never the lead's new one; v1 links still work", async () => {
    const lead = await newLead();
    const old = lead.email!;
    await settled((await reply(lead.id, 'email', 'Our spring offer.')).id);
    const link = new URL(unsubscribeUrl(await mailTo(old))!);
    const changed = `new.${randomUUID().slice(0, 8)}@example.com`;
    await request(s.app)
      .patch(`/api/v1/leads/${lead.id}`)
      .set(bearer(s.key))
      .send({ email: changed })
      .expect(200);

    const clicked = await request(s.app).post(link.pathname).type('form').send('List-Unsubscribe=One-Click');
    assert.equal(clicked.status, 200);
    assert.match(clicked.text, /You are unsubscribed/);
    const blocked = await s.db.query<{ address: string }[]>(
      `SELECT address FROM suppressions WHERE workspace_id = $1 AND address IN ($2, $3)`,
      [s.workspace.id, old, changed],
    );
    assert.deepEqual(
      blocked.map((r) => r.address),
      [old],
      'the old address is suppressed, the new one is not',
    );
    await settled((await reply(lead.id, 'email', 'Still reachable at the new address.')).id);

    // A v1 link (sent before links named their address) names the lead only: it reaches the address
    // we emailed the lead at, the current one once we have, never one we never wrote to.
    const v1 = (leadId: string) => {
      const key = createHmac('sha256', s.config.secretsKey).update('unsubscribe-links/v1').digest();
      const id = Buffer.from(leadId.replace(/-/g, ''), 'hex');
      const mac = createHmac('sha256', key).update(id).digest().subarray(0, 16);
      return `/u/${Buffer.concat([id, mac]).toString('base64url')}`;
    };
    const fresh = await newLead();
    const nothing = await request(s.app).post(v1(fresh.id)).type('form').send('List-Unsubscribe=One-Click');
    assert.equal(nothing.status, 200);
    assert.match(nothing.text, /Nothing to unsubscribe/, 'never emailed: nothing to do');
    await request(s.app).post(v1(lead.id)).type('form').send('List-Unsubscribe=One-Click').expect(200);
    assert.equal(
      await count(s.db, 'suppressions', 'address = $1', [changed]),
      1,
      'v1: the current, emailed address',
    );
  });

  it('answers every request under /u/ with a page: framing refused, nothing cached, no JSON', async () => {
    const token = Buffer.alloc(40, 3).toString('base64url');
    for (const [method, path] of [
      ['get', `/u/${token}`],
      ['post', `/u/${token}`],
      ['put', `/u/${token}`],
      ['get', `/u/${token}/extra`],
      ['delete', '/u/x'],
    ] as const) {
      const res = await request(s.app)[method](path).set('Content-Type', 'application/json').send('{}');
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.match(res.headers['content-type'] ?? '', /^text\/html/, `${method} ${path}: a page`);
      assert.match(res.headers['content-security-policy'] ?? '', /frame-ancestors 'none'/);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['referrer-policy'], 'no-referrer');
      assert.doesNotMatch(res.text, /^\s*\{/);
    }
  });

  it('refuses a forged unsubscribe token, audited, changing nothing', async () => {
    const forged = `/u/${Buffer.alloc(32, 7).toString('base64url')}`;
    await request(s.app).get(forged).expect(404);
    await request(s.app).post(forged).type('form').send('List-Unsubscribe=One-Click').expect(404);
    const [row] = await s.db.query(
      `SELECT * FROM audit_log WHERE door = 'public' AND action = 'contact.unsubscribe_link' AND status = 404 ORDER BY id DESC LIMIT 1`,
    );
    assert.equal(row.outcome, 'refused');
  });

  it('a 5xx bounce fails the message and suppresses the address (contact.suppressed, reason bounce)', async () => {
    const lead = await newLead();
    smtp.refuse(lead.email!, 550, '5.1.1 No such user here');
    const queued = await reply(lead.id, 'email', 'Hello?');
    const failed = await settled(queued.id);
    assert.equal(failed.status, 'failed');
    assert.match(failed.error!, /SMTP 550/);
    const event = await webhookOf('contact.suppressed', (d) => d.lead_id === lead.id);
    assert.equal(event.data.reason, 'bounce');
    assert.equal(event.data.channel, 'email');
    assert.equal(event.data.source, 'email provider');
    assert.equal(await count(s.db, 'suppressions', `address = $1 AND reason = 'bounce'`, [lead.email]), 1);
    assert.equal(smtp.received.filter((r) => r.to.includes(lead.email!)).length, 0);
  });

  it('a transient SMTP failure (4xx) keeps the message for its next rung', async () => {
    const lead = await newLead();
    smtp.refuse(lead.email!, 451, '4.3.0 Try again later');
    const queued = await reply(lead.id, 'email', 'Soon');
    const waiting = await settled(queued.id);
    assert.equal(waiting.status, 'retrying');
    assert.match(waiting.error!, /SMTP 451/);
    assert.equal(await count(s.db, 'suppressions', 'address = $1', [lead.email]), 0);
  });

  it('sends SMS through the provider; an invalid number fails and is suppressed', async () => {
    const phone = newPhone();
    const lead = await newLead({ email: undefined, phone });
    const queued = await reply(lead.id, 'sms', 'See you at 10');
    const sent = await settled(queued.id);
    assert.equal(sent.status, 'sent');
    const got = sms.sent.find((m) => m.to === phone);
    assert.equal(got?.body, 'See you at 10');
    assert.equal(got?.from, '+15550000001');
    assert.equal(sent.provider_message_id, got?.sid);

    const dead = newPhone();
    sms.failFor(dead, 400, 21211, "The 'To' number is not a valid phone number.");
    const other = await newLead({ email: undefined, phone: dead });
    const failed = await settled((await reply(other.id, 'sms', 'Hi')).id);
    assert.equal(failed.status, 'failed');
    assert.match(failed.error!, /21211/);
    const event = await webhookOf('contact.suppressed', (d) => d.lead_id === other.id);
    assert.equal(event.data.reason, 'invalid_number');
  });

  it('records an inbound SMS signed as Twilio signs; refuses a forged or replayed one; STOP opts out', async () => {
    const phone = newPhone();
    const lead = await newLead({ email: undefined, phone });
    const path = `/hooks/sms/${s.workspace.id}`;
    const sid = `SM${randomUUID().replace(/-/g, '')}`;
    const res = await signedSms(path, {
      From: phone,
      To: '+15550000001',
      Body: 'Yes please',
      MessageSid: sid,
    });
    assert.equal(res.status, 200);
    assert.match(res.text, /<Response><\/Response>/);
    const received = await webhookOf('reply.received', (d) => d.lead_id === lead.id);
    assert.equal(received.data.channel, 'sms');
    const message = await webhookOf('message.received', (d) => d.lead_id === lead.id);
    assert.equal(message.data.body, 'Yes please');

    const replay = await signedSms(path, {
      From: phone,
      To: '+15550000001',
      Body: 'Yes please',
      MessageSid: sid,
    });
    assert.equal(replay.status, 409);
    const forged = await signedSms(
      path,
      { From: phone, Body: 'Send money', MessageSid: `SM${randomUUID()}` },
      'wrong',
    );
    assert.equal(forged.status, 401);
    assert.equal(forged.body.error.code, 'unauthorized');
    const [audit] = await s.db.query(
      `SELECT * FROM audit_log WHERE door = 'public' AND action = 'hooks.sms' AND status = 401 ORDER BY id DESC LIMIT 1`,
    );
    assert.equal(audit.reason, 'X-Twilio-Signature does not match');
    assert.equal(await count(s.db, 'messages', `lead_id = $1 AND direction = 'inbound'`, [lead.id]), 1);

    const stop = await signedSms(path, {
      From: phone,
      Body: 'Stop',
      MessageSid: `SM${randomUUID().replace(/-/g, '')}`,
    });
    assert.equal(stop.status, 200);
    const optOut = await webhookOf('contact.unsubscribed', (d) => d.lead_id === lead.id);
    assert.equal(optOut.data.channel, 'sms');
    assert.equal(optOut.data.source, 'sms STOP');
    await assert.rejects(reply(lead.id, 'sms', 'Are you sure?'), { code: 'suppressed' });
  });

  it('records an inbound email (raw MIME, DKIM-signed) with the workspace secret, and the reply threads on it', async () => {
    const lead = await newLead();
    const { secret, path } = await s.run(issueInboundEmailSecret, {}, { workspaceId: s.workspace.id });
    const messageId = `<${randomUUID()}@mail.example.com>`;
    const mime = [
      `From: Ana Lima <${lead.email}>`,
      'To: hello@acme.example',
      'Subject: Question about prices',
      `Message-ID: ${messageId}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      'How much is the premium plan?',
      '',
    ].join('\r\n');
    const signed = await leadsDomain.sign(mime);
    const post = (auth: string) =>
      request(s.app).post(path).set('Authorization', auth).set('Content-Type', 'message/rfc822').send(signed);
    assert.equal((await post('Bearer iem_wrong')).status, 401);
    const res = await post(`Bearer ${secret}`);
    assert.equal(res.status, 201);
    assert.equal(res.body.data.body, 'How much is the premium plan?');
    await webhookOf('reply.received', (d) => d.lead_id === lead.id && d.channel === 'email');
    assert.equal((await post(`Basic ${Buffer.from(`inbound:${secret}`).toString('base64')}`)).status, 409);

    const queued = await reply(lead.id, 'email', 'It is 40 a month.');
    await settled(queued.id);
    const got = await mailTo(lead.email!);
    assert.equal(got.mail.inReplyTo, messageId);
    assert.equal(got.mail.subject, 'Re: Question about prices');
  });

  it('a bounce report to the return path of an email the server accepted marks it bounced and suppresses the address, once', async () => {
    const lead = await newLead();
    const { secret, path } = await s.run(issueInboundEmailSecret, {}, { workspaceId: s.workspace.id });
    const queued = await reply(lead.id, 'email', 'Did this arrive?');
    const sent = await settled(queued.id);
    assert.equal(sent.status, 'sent');
    // The receiving MX sends its report to the envelope sender the SMTP server was given.
    const returnPath = (await mailTo(lead.email!)).from;
    const report = (status: string) =>
      deliveryStatusReport({
        messageId: sent.provider_message_id!,
        recipient: lead.email!,
        mx: 'mx.example.com',
        status,
        to: returnPath,
      });
    const post = async (status: string) =>
      request(s.app)
        .post(path)
        .set('Authorization', `Bearer ${secret}`)
        .set('Content-Type', 'message/rfc822')
        .send(await leadsDomain.sign(report(status)));
    const delayed = await post('4.4.1');
    assert.equal(delayed.status, 202, JSON.stringify(delayed.body));
    assert.equal((await settled(queued.id)).status, 'sent', 'a delay changes nothing');
    assert.equal((await post('5.1.1')).status, 202);
    const bounced = await settled(queued.id, (m) => m.status === 'bounced');
    assert.match(bounced.error!, /^bounced: 5\.1\.1/);
    const event = await webhookOf('contact.suppressed', (d) => d.lead_id === lead.id);
    assert.deepEqual([event.data.reason, event.data.source], ['bounce', 'bounce report']);
    assert.equal((await post('5.1.1')).status, 202);
    const events = (await eventsFor(s.db, lead.id)).filter((e) => e.type === 'contact.suppressed');
    assert.equal(events.length, 1, 'a second report emits nothing');
    assert.equal(await count(s.db, 'messages', `lead_id = $1 AND direction = 'inbound'`, [lead.id]), 0);
  });
});
