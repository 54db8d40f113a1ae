import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import { envelopeOf } from '../../api/public/mail-authentication';
import { deliveryReport, feedbackReport } from '../../api/public/mail-reports';
import { brakeReason } from '../../domain/campaigns/pausing';
import { DELIVERABILITY_DEFAULTS } from '../../domain/identity/deliverability';
import { rawMail } from '../helpers/mail-dns';

const report = (type: string, parts: string[][]) =>
  rawMail(
    {
      From: 'reports@isp.example',
      'MIME-Version': '1.0',
      'Content-Type': `multipart/report; report-type=${type}; boundary="R"`,
    },
    [...parts.flatMap((p) => ['--R', ...p, '']), '--R--'].join('\r\n'),
  );

describe('the campaign brake: when rates pause a campaign', () => {
  const limits = DELIVERABILITY_DEFAULTS;

  it('judges nothing under min_sends, however bad', () => {
    assert.equal(brakeReason({ sends: 99, hard_bounces: 50, complaints: 10 }, limits), undefined);
  });

  it('pauses above a limit, not at it', () => {
    assert.equal(brakeReason({ sends: 100, hard_bounces: 5, complaints: 0 }, limits), undefined);
    assert.equal(
      brakeReason({ sends: 100, hard_bounces: 6, complaints: 0 }, limits),
      'hard bounces 6 of 100 sends (6%), above the 5% limit',
    );
    assert.equal(brakeReason({ sends: 1_000, hard_bounces: 0, complaints: 3 }, limits), undefined);
    assert.equal(
      brakeReason({ sends: 1_000, hard_bounces: 0, complaints: 4 }, limits),
      'spam complaints 4 of 1000 sends (0.4%), above the 0.3% limit',
    );
  });

  it("names both when both are over, and follows the workspace's own limits", () => {
    assert.match(
      brakeReason({ sends: 200, hard_bounces: 20, complaints: 2 }, limits)!,
      /^hard bounces 20 of 200 sends \(10%\), above the 5% limit; spam complaints 2 of 200 sends \(1%\)/,
    );
    const tight = { min_sends: 50, max_bounce_percent: 2, max_complaint_percent: 0.1 };
    assert.match(brakeReason({ sends: 50, hard_bounces: 2, complaints: 0 }, tight)!, /above the 2% limit/);
  });
});

describe('reports from receiving servers', () => {
  it('reads a delivery-status report: status, recipient, original Message-ID; a delay is 4.x.x', async () => {
    const dsn = (action: string) =>
      simpleParser(
        report('delivery-status', [
          ['Content-Type: text/plain', '', 'Undeliverable.'],
          [
            'Content-Type: message/delivery-status',
            '',
            'Reporting-MTA: dns; mx.customer.example',
            '',
            'Final-Recipient: rfc822; Ana@Customer.example',
            `Action: ${action}`,
            'Status: 5.1.1',
          ],
          ['Content-Type: text/rfc822-headers', '', 'Message-ID: <m1@acme.example>'],
        ]),
      );
    assert.deepEqual(deliveryReport(await dsn('failed')), {
      originalMessageId: '<m1@acme.example>',
      status: '5.1.1',
      diagnostic: '',
      recipient: 'ana@customer.example',
    });
    assert.equal(deliveryReport(await dsn('delayed'))?.status, '4.1.1');
  });

  it('reads an ARF complaint: feedback type, original recipient, original Message-ID', async () => {
    const arf = await simpleParser(
      report('feedback-report', [
        ['Content-Type: text/plain', '', 'An abuse report.'],
        [
          'Content-Type: message/feedback-report',
          '',
          'Feedback-Type: Abuse',
          'Version: 1',
          'Original-Rcpt-To: <ana@customer.example>',
        ],
        [
          'Content-Type: message/rfc822',
          '',
          'From: hello@acme.example',
          'Message-ID: <m2@acme.example>',
          '',
          'Hi',
        ],
      ]),
    );
    assert.deepEqual(feedbackReport(arf), {
      originalMessageId: '<m2@acme.example>',
      feedbackType: 'abuse',
      recipient: 'ana@customer.example',
    });
    assert.equal(deliveryReport(arf), undefined, 'a complaint is not a bounce');
  });

  it('a report without the original Message-ID is not one', async () => {
    const bare = await simpleParser(
      report('feedback-report', [['Content-Type: message/feedback-report', '', 'Feedback-Type: abuse']]),
    );
    assert.equal(feedbackReport(bare), undefined);
  });
});

describe('the envelope a forwarder gives', () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name] ?? '';

  it('takes the client address (bracketed or not), HELO and MAIL FROM; ignores an address that does not parse', () => {
    assert.deepEqual(
      envelopeOf(
        headers({
          'X-Envelope-Client-IP': '[192.0.2.10]',
          'X-Envelope-Helo': 'mx.customer.example',
          'X-Envelope-From': '<b@customer.example>',
        }),
        {},
      ),
      { source: 'given', ip: '192.0.2.10', helo: 'mx.customer.example', mailFrom: 'b@customer.example' },
    );
    assert.equal(envelopeOf(headers({ 'X-Envelope-Client-IP': 'not-an-ip' }), {}), undefined);
  });

  it("reads the provider's Received header only when the route says so", () => {
    assert.deepEqual(envelopeOf(headers({}), { envelope: 'received' }), { source: 'received' });
    assert.equal(envelopeOf(headers({}), {}), undefined);
  });
});
