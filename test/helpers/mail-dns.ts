import { createHash, createSign, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { dkimSign } from 'mailauth';
import request from 'supertest';

/**
 * An in-process DNS zone for mail authentication, in the shape of mailauth's `resolver` option (and
 * `dns.promises.resolve`): TXT answers come back as arrays of strings, the way a record published in
 * 255-character pieces does; a name the zone lacks fails with ENOTFOUND, a type it lacks with ENODATA.
 */
export type MailZone = {
  /** TXT records by name; each record is its strings (a long one in pieces). */
  txt?: Record<string, string[][]>;
  /** A and AAAA answers by name, for SPF's `a` and `mx` mechanisms. */
  a?: Record<string, string[]>;
  mx?: Record<string, { exchange: string; priority: number }[]>;
};

const fail = (code: 'ENOTFOUND' | 'ENODATA', name: string) =>
  Object.assign(new Error(`${code} ${name}`), { code, hostname: name });

export function mailZone(zone: MailZone = {}) {
  const queries: string[] = [];
  const table = (rrtype: string): Record<string, unknown[]> | undefined =>
    rrtype === 'TXT' ? zone.txt : rrtype === 'A' ? zone.a : rrtype === 'MX' ? zone.mx : undefined;
  const resolver = async (name: string, rrtype: string) => {
    const key = name.toLowerCase().replace(/\.$/, '');
    queries.push(`${rrtype} ${key}`);
    const answer = table(rrtype)?.[key];
    if (answer?.length) return answer as string[][];
    const known = [zone.txt, zone.a, zone.mx].some((t) => t && key in t);
    throw fail(known ? 'ENODATA' : 'ENOTFOUND', key);
  };
  return {
    resolver,
    queries,
    /** Publishes (or replaces) a TXT record. */
    publish: (name: string, ...records: string[][]) => {
      zone.txt = { ...zone.txt, [name.toLowerCase()]: records };
    },
  };
}

/**
 * A sending domain in the zone: a fresh 2048-bit DKIM key published at `<selector>._domainkey`, and a
 * DMARC policy (`p=reject` unless told). `sign` DKIM-signs a raw message as the domain's own server
 * would (mailauth's signer, relaxed/relaxed), answering the message with its signature on top.
 */
export function sendingDomain(
  zone: ReturnType<typeof mailZone>,
  domain: string,
  opts: { selector?: string; dmarc?: string | null } = {},
) {
  const selector = opts.selector ?? 'test';
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const p = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  zone.publish(`${selector}._domainkey.${domain}`, inPieces(`v=DKIM1; k=rsa; p=${p}`));
  if (opts.dmarc !== null) zone.publish(`_dmarc.${domain}`, [`v=DMARC1; ${opts.dmarc ?? 'p=reject'}`]);
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return {
    domain,
    /**
     * `maxBodyLength`: an `l=` tag, signing only that much of the body; `headerList`: the `h=` fields
     * (colon-separated), mailauth's default list otherwise.
     */
    sign: async (raw: string, opts: { maxBodyLength?: number; headerList?: string } = {}) => {
      // mailauth 7 refuses to sign without From, as an honest signer should; a hostile one need not.
      if (opts.headerList && !opts.headerList.toLowerCase().split(':').includes('from'))
        return signWithout(raw, { domain, selector, privateKey }, opts.headerList);
      // mailauth's signer reads the keys from `signatureData`; its types want them at the top as well.
      const key = { signingDomain: domain, selector, privateKey: pem };
      const { signatures, errors } = await dkimSign(raw, {
        ...key,
        canonicalization: 'relaxed/relaxed',
        // A colon-separated string, as mailauth reads it (tools.js getSigningHeaderLines).
        ...(opts.headerList && { headerList: opts.headerList }),
        signatureData: [
          {
            ...key,
            algorithm: 'rsa-sha256',
            canonicalization: 'relaxed/relaxed',
            ...(opts.maxBodyLength !== undefined && { maxBodyLength: opts.maxBodyLength }),
          },
        ],
      });
      if (errors.length > 0) throw errors[0]!.err;
      return signatures + raw;
    },
  };
}

/** A header's value unfolded, runs of blanks made one space, trimmed (RFC 6376 relaxed). */
const relaxedValue = (value: string) =>
  value
    .replace(/\r\n(?=[ \t])/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim();

/**
 * A DKIM signature (rsa-sha256, relaxed/relaxed) over the `h=` fields named, whatever they are: what a
 * hostile signer writes when it leaves From out, which mailauth's own signer refuses to make.
 */
function signWithout(
  raw: string,
  key: { domain: string; selector: string; privateKey: KeyObject },
  headerList: string,
): string {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split);
  const body = raw.slice(split + 4);
  const fields = head
    .split(/\r\n(?![ \t])/)
    .map((line) => [
      line.slice(0, line.indexOf(':')).trim().toLowerCase(),
      line.slice(line.indexOf(':') + 1),
    ]);
  const lines = body.split('\r\n').map((l) => l.replace(/[ \t]+/g, ' ').replace(/ $/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const canonBody = lines.length > 0 ? `${lines.join('\r\n')}\r\n` : '';
  const bh = createHash('sha256').update(canonBody).digest('base64');
  const names = headerList.toLowerCase().split(':');
  const value = `v=1; a=rsa-sha256; c=relaxed/relaxed; d=${key.domain}; s=${key.selector}; h=${names.join(':')}; bh=${bh}; b=`;
  const signed = names
    .map((n) => [...fields].reverse().find(([name]) => name === n))
    .filter((f): f is string[] => !!f)
    .map(([name, v]) => `${name}:${relaxedValue(v!)}\r\n`)
    .join('');
  const b = createSign('sha256')
    .update(`${signed}dkim-signature:${relaxedValue(value)}`)
    .sign(key.privateKey, 'base64');
  return `DKIM-Signature: ${value}${b}\r\n${raw}`;
}

/** A TXT value as a zone file holds a long one: strings of at most 255 characters. */
const inPieces = (value: string) => value.match(/.{1,255}/g)!;

/** A plain email, as lines joined with CRLF; `headers` first, then the body. */
export const rawMail = (headers: Record<string, string>, body: string) =>
  [...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', body, ''].join('\r\n');

/**
 * A delivery-status report (RFC 3464) from the recipient's MX `mx`, about our `messageId` to
 * `recipient` (no Final-Recipient when null), sent `to` an address (our envelope sender, as an MX
 * does; `hello@acme.example` unless told): failed for a 5.x.x status, delayed otherwise.
 */
export const deliveryStatusReport = (r: {
  messageId: string;
  recipient: string | null;
  mx: string;
  status?: string;
  to?: string;
}) => {
  const status = r.status ?? '5.1.1';
  return rawMail(
    {
      From: `Mail Delivery System <MAILER-DAEMON@${r.mx}>`,
      To: r.to ?? 'hello@acme.example',
      Subject: 'Undelivered Mail Returned to Sender',
      'Message-ID': `<dsn-${randomUUID()}@${r.mx}>`,
      'MIME-Version': '1.0',
      'Content-Type': 'multipart/report; report-type=delivery-status; boundary="B"',
    },
    [
      '--B',
      'Content-Type: text/plain',
      '',
      'Your message could not be delivered.',
      '',
      '--B',
      'Content-Type: message/delivery-status',
      '',
      `Reporting-MTA: dns; ${r.mx}`,
      '',
      ...(r.recipient === null ? [] : [`Final-Recipient: rfc822; ${r.recipient}`]),
      status.startsWith('5') ? 'Action: failed' : 'Action: delayed',
      `Status: ${status}`,
      'Diagnostic-Code: smtp; 550 5.1.1 No such user',
      '',
      '--B',
      'Content-Type: text/rfc822-headers',
      '',
      `Message-ID: ${r.messageId}`,
      '',
      '--B--',
    ].join('\r\n'),
  );
};

/**
 * An ARF feedback report (RFC 5965) from a mailbox provider's feedback loop `from`: its user marked our
 * `messageId` as spam. It names `recipient` as Original-Rcpt-To (none when null) and is sent `to` an
 * address (`hello@acme.example` unless told).
 */
export const feedbackLoopReport = (r: {
  messageId: string;
  recipient: string | null;
  from: string;
  to?: string;
}) =>
  rawMail(
    {
      From: `Feedback Loop <${r.from}>`,
      To: r.to ?? 'hello@acme.example',
      Subject: 'Abuse report',
      'Message-ID': `<arf-${randomUUID()}@${r.from.split('@')[1]}>`,
      'MIME-Version': '1.0',
      'Content-Type': 'multipart/report; report-type=feedback-report; boundary="F"',
    },
    [
      '--F',
      'Content-Type: text/plain',
      '',
      'This is an email abuse report for an email message received from you.',
      '',
      '--F',
      'Content-Type: message/feedback-report',
      '',
      'Feedback-Type: abuse',
      'User-Agent: fbl/1.0',
      'Version: 1',
      ...(r.recipient === null ? [] : [`Original-Rcpt-To: <${r.recipient}>`]),
      '',
      '--F',
      'Content-Type: message/rfc822',
      '',
      'From: hello@acme.example',
      `To: ${r.recipient ?? 'someone@example.com'}`,
      `Message-ID: ${r.messageId}`,
      'Subject: Did this arrive?',
      '',
      'Did this arrive?',
      '',
      '--F--',
    ].join('\r\n'),
  );

/**
 * Posts a raw email to a workspace's inbound route as its forwarder does: the route's secret as a
 * bearer, the message as `message/rfc822`, and any X-Envelope-* headers the forwarder adds.
 */
export const postInbound = (
  app: Parameters<typeof request>[0],
  inbound: { secret: string; path: string },
  raw: string,
  headers: Record<string, string> = {},
) =>
  request(app)
    .post(inbound.path)
    .set('Authorization', `Bearer ${inbound.secret}`)
    .set('Content-Type', 'message/rfc822')
    .set(headers)
    .send(raw);
