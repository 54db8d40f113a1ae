import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { authenticate } from 'mailauth';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import { composeEmail, smtpProvider } from '../../activities/providers/email';
import { mailDns, type MailDnsRecord } from '../../domain/conversations/operations/mail-dns';
import type { Services } from '../../domain/kernel/operation';
import { loadConfig, type Config } from '../../infra/config';
import { repoRoot } from '../../tooling/paths';
import { startSmtpSink, type SmtpSink } from '../../tooling/smtp-sink';
import { runAdmin } from '../helpers/admin';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, refusal } from '../helpers/fixtures';
import { mailZone } from '../helpers/mail-dns';
import { testServices } from '../../tooling/services';

const DOMAIN = 'example.com';
const FROM = 'hello@mail.example.com';
const SELECTOR = 'leads2026';

/** The message's header section, unfolded: one line per field. */
const headerLines = (raw: string) =>
  raw
    .split('\r\n\r\n')[0]!
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n');

/** The header fields the DKIM signature says it covers (its `h=` tag), lower-cased. */
const signedFields = (raw: string) => {
  const signature = headerLines(raw).find((l) => /^DKIM-Signature:/i.test(l));
  assert.ok(signature, 'the message carries a DKIM-Signature');
  const h = /[;\s]h=([^;]+)/.exec(signature)?.[1];
  assert.ok(h, signature);
  return h.replace(/\s+/g, '').toLowerCase().split(':');
};

describe('outbound mail is DKIM-signed, and `mail dns` prints the records receivers check', () => {
  let t: TestDatabase;
  let sink: SmtpSink;
  let config: Config;
  let keyFile: string;
  /** The marketing email as the SMTP server received it, byte for byte. */
  let raw: string;
  /** Its envelope sender, as the SMTP server saw it. */
  let envelopeFrom: string;
  // Under the repository's own .data/, as the other tests keep their files; the CLI reads the key too.
  const dir = path.join(repoRoot(), '.data', `mail-dkim-${process.pid}-${randomBytes(4).toString('hex')}`);

  before(async () => {
    [t, sink] = await Promise.all([freshDatabase(), startSmtpSink()]);
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    keyFile = path.join(dir, `${SELECTOR}.pem`);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: t.url,
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      SMTP_URL: sink.url,
      MAIL_FROM: FROM,
      DKIM_DOMAIN: DOMAIN,
      DKIM_SELECTOR: SELECTOR,
      DKIM_PRIVATE_KEY_FILE: keyFile,
    });
  });
  after(async () => {
    await sink.stop();
    await t.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The services the admin CLI builds from the same configuration. */
  const services = (): Services => {
    const { url, from, dkim, returnPathDomain } = config.smtp!;
    return testServices(t.db, {
      mailSigning: {
        domain: dkim!.domain,
        selector: dkim!.selector,
        publicKey: createPublicKey(dkim!.privateKey),
        from,
        returnPath: returnPathDomain,
        relay: new URL(url).hostname,
      },
    });
  };
  const recordsFor = async (purpose: MailDnsRecord['purpose']) =>
    (await asOperator(services(), mailDns, { domain: DOMAIN })).records.find((r) => r.purpose === purpose)!;

  it('signs a marketing email, unsubscribe headers included, so that it verifies with the DKIM record', async () => {
    const provider = smtpProvider({ ...config.smtp!, secretsKey: config.secretsKey });
    const id = randomUUID();
    const mailId = randomUUID();
    const sent = await provider.send(
      composeEmail({
        id,
        mailId,
        to: 'ana@receiver.example',
        fromName: 'Acme Solar',
        subject: 'Spring offer',
        body: 'Panels are 10% off until May.',
        inReplyTo: null,
        marketing: true,
        unsubscribeUrl: 'https://leads.example.test/u/token-1',
      }),
    );
    provider.close();
    assert.equal(sent.kind, 'sent');
    const received = sink.received.find((r) => r.mail.messageId === provider.messageIdOf(mailId))!;
    raw = received.raw;
    envelopeFrom = received.from;
    // The Message-ID names nothing of ours; the envelope sender is the message's own return path.
    assert.equal(received.mail.messageId, `<${mailId}@mail.example.com>`);
    assert.ok(!raw.includes(id) && !raw.includes(id.replace(/-/g, '')), 'the message id is not in the email');
    assert.match(envelopeFrom, /^bounces\+[0-9a-f]{32}\.[0-9a-f]{20}@mail\.example\.com$/);
    assert.ok(envelopeFrom.split('@')[0]!.length <= 64, 'a local part of at most 64 characters');
    assert.equal(envelopeFrom.slice('bounces+'.length, 'bounces+'.length + 32), id.replace(/-/g, ''));
    assert.ok(headerLines(raw).includes('List-Unsubscribe-Post: List-Unsubscribe=One-Click'), raw);

    const dkim = await recordsFor('dkim');
    assert.equal(dkim.name, `${SELECTOR}._domainkey.${DOMAIN}`);
    assert.match(dkim.value, /^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$/);
    assert.equal(dkim.strings.length, 2, 'a 2048-bit key needs two TXT strings');
    assert.ok(dkim.strings.every((s) => s.length <= 255));
    assert.equal(dkim.strings.join(''), dkim.value);

    const zone = mailZone();
    zone.publish(dkim.name, dkim.strings);
    const [signature] = (await dkimVerify(raw, { resolver: zone.resolver })).results;
    assert.equal(signature?.status.result, 'pass', signature?.status.comment);
    assert.equal(signature.signingDomain, DOMAIN);
    assert.equal(signature.selector, SELECTOR);
    // d=example.com for From mail.example.com: aligned for DMARC, relaxed.
    assert.equal(signature.status.aligned, DOMAIN);
    assert.deepEqual(zone.queries, [`TXT ${SELECTOR}._domainkey.${DOMAIN}`]);

    const fields = signedFields(raw);
    for (const f of ['from', 'subject', 'message-id', 'list-unsubscribe', 'list-unsubscribe-post'])
      assert.ok(fields.includes(f), `h= covers ${f}: ${fields.join(':')}`);

    // Anything changed on the way breaks it: the body, or the one-click header Gmail and Yahoo act on.
    const longerBody = raw.replace(/\r\n$/, '\r\nP.S. added on the way\r\n');
    const [bodyChanged] = (await dkimVerify(longerBody, { resolver: zone.resolver })).results;
    assert.notEqual(bodyChanged?.status.result, 'pass');
    assert.match(String(bodyChanged?.status.comment), /body hash did not verify/);
    const headerChanged = raw.replace(
      'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
      'List-Unsubscribe-Post: List-Unsubscribe=Later',
    );
    assert.notEqual(headerChanged, raw);
    const [postChanged] = (await dkimVerify(headerChanged, { resolver: zone.resolver })).results;
    assert.equal(postChanged?.status.result, 'fail');
  });

  it('passes SPF, DKIM and DMARC at a receiver once all three records are published', async () => {
    const zone = mailZone();
    for (const purpose of ['dkim', 'spf', 'dmarc'] as const) {
      const r = await recordsFor(purpose);
      zone.publish(r.name, r.strings);
    }
    // The sink is the relay here (SMTP_URL on 127.0.0.1), so that is the address mail comes from.
    const result = await authenticate(raw, {
      ip: '127.0.0.1',
      helo: 'relay.test',
      sender: envelopeFrom,
      mta: 'mx.receiver.example',
      resolver: zone.resolver,
      disableArc: true,
      disableBimi: true,
    });
    assert.equal(result.dkim.results[0]?.status.result, 'pass');
    assert.ok(result.spf);
    assert.equal(result.spf.status.result, 'pass', result.spf.info);
    assert.ok(result.dmarc);
    assert.equal(result.dmarc.status.result, 'pass', result.dmarc.info);
    assert.equal(result.dmarc.p, 'none');
  });

  it('puts SPF and the MX to the inbound relay on a return path domain of its own', async () => {
    const own = {
      ...services(),
      mailSigning: { ...services().mailSigning!, returnPath: `bounces.${DOMAIN}` },
    };
    const out = await asOperator(own, mailDns, { domain: DOMAIN, inbound_mx: 'mx.inbound.example' });
    assert.deepEqual(out.return_path, {
      domain: `bounces.${DOMAIN}`,
      envelope_sender: `bounces+<message id>.<mac>@bounces.${DOMAIN}`,
      inbound_mx: 'mx.inbound.example',
    });
    assert.deepEqual(
      out.records.map((r) => [r.purpose, r.name, r.type, r.value]),
      [
        ['dkim', `${SELECTOR}._domainkey.${DOMAIN}`, 'TXT', out.records[0]!.value],
        ['spf', `bounces.${DOMAIN}`, 'TXT', 'v=spf1 ip4:127.0.0.1 -all'],
        ['mx', `bounces.${DOMAIN}`, 'MX', '10 mx.inbound.example.'],
        ['dmarc', `_dmarc.${DOMAIN}`, 'TXT', out.records[3]!.value],
      ],
    );
    const zone = mailDns.doors.admin!.present!(out) as string;
    assert.ok(zone.split('\n').includes(`bounces.${DOMAIN}. IN MX 10 mx.inbound.example.`), zone);
    assert.match(zone.replace(/\n; /g, ' '), /keep its MX and route bounces\+\* to the inbound relay/);
  });

  it('refuses a domain it does not sign for, or any domain without a key, saying what to set', async () => {
    const other = await refusal(asOperator(services(), mailDns, { domain: 'other.example' }));
    assert.equal(other.code, 'invalid_request');
    assert.equal(other.details.field, 'domain');
    assert.match(other.message, /signed for example\.com, not other\.example.*DKIM_DOMAIN=other\.example/);
    const none = await refusal(asOperator(testServices(t.db), mailDns, { domain: DOMAIN }));
    assert.equal(none.details.field, 'domain');
    assert.match(none.message, /no DKIM key is configured.*DKIM_SELECTOR and DKIM_PRIVATE_KEY_FILE/);
    const bad = await refusal(asOperator(services(), mailDns, { domain: 'not a domain' }));
    assert.equal(bad.details.field, 'domain');
  });

  it('prints zone-file lines at the admin CLI that, pasted, verify the mail', async () => {
    const env = {
      DATABASE_URL: t.url,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
      SMTP_URL: 'smtp://mailer:secret@smtp.relay.example:587',
      MAIL_FROM: FROM,
      DKIM_DOMAIN: DOMAIN,
      DKIM_SELECTOR: SELECTOR,
      DKIM_PRIVATE_KEY_FILE: keyFile,
    };
    const r = runAdmin(env, ['mail', 'dns', '--domain', DOMAIN]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    const record = (name: string) => {
      const line = lines.find((l) => l.startsWith(`${name}. IN TXT "`));
      assert.ok(line, `a line for ${name}:\n${r.stdout}`);
      return line;
    };
    assert.equal(record(`mail.${DOMAIN}`), `mail.${DOMAIN}. IN TXT "v=spf1 a:smtp.relay.example -all"`);
    assert.equal(
      record(`_dmarc.${DOMAIN}`),
      `_dmarc.${DOMAIN}. IN TXT "v=DMARC1; p=none; rua=mailto:dmarc-reports@${DOMAIN}; adkim=r; aspf=r"`,
    );
    const dkimLine = record(`${SELECTOR}._domainkey.${DOMAIN}`);
    const pieces = [...dkimLine.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
    assert.equal(pieces.length, 2);
    const said = lines
      .filter((l) => l.startsWith('; '))
      .map((l) => l.slice(2))
      .join(' ');
    assert.match(said, /add its include: before -all/, "says to add the relay provider's SPF");
    assert.match(said, /start at p=none .* move to p=quarantine, then p=reject/, 'says how DMARC moves on');
    assert.ok(
      lines.every((l) => l.length <= 100 || / IN TXT "/.test(l)),
      'explanations fit a terminal',
    );
    assert.ok(
      lines.every((l) => l === '' || l.startsWith(';') || / IN TXT "/.test(l)),
      'nothing a zone file would not take',
    );
    assert.match(said, /needs an MX .* Run again with --inbound-mx HOST/, 'says the return path needs an MX');

    const zone = mailZone();
    zone.publish(`${SELECTOR}._domainkey.${DOMAIN}`, pieces);
    const [signature] = (await dkimVerify(raw, { resolver: zone.resolver })).results;
    assert.equal(signature?.status.result, 'pass');

    const refused = runAdmin(env, ['mail', 'dns', '--domain', 'other.example']);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /^error \(domain\): outbound mail is signed for example\.com, not other\.example/,
    );
    assert.match(refused.stderr, /DKIM_SELECTOR and DKIM_PRIVATE_KEY_FILE/);
  });
});
