import { BlockList, isIP } from 'node:net';
import * as yup from 'yup';
import { invalid } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { arrayOf, integer, nullable, object, oneOf, string } from '../../kernel/shapes';

/** One character-string of a TXT record holds at most 255 octets (RFC 1035 3.3); longer is several. */
const TXT_STRING_MAX = 255;
const DOMAIN_NAME =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

type Purpose = 'dkim' | 'spf' | 'mx' | 'dmarc';
export type MailDnsRecord = {
  purpose: Purpose;
  name: string;
  type: 'TXT' | 'MX';
  value: string;
  /** A TXT value in pieces of at most 255 characters, as a zone file holds it (`"..." "..."`). */
  strings: string[];
  /** Why it is there and what to do about it, for the person publishing it. */
  note: string;
};
type MailDns = {
  domain: string;
  selector: string;
  key_bits: number;
  /** The envelope sender's domain (MAIL_RETURN_PATH_DOMAIN) and what the envelope senders look like. */
  return_path: { domain: string; envelope_sender: string; inbound_mx: string | null };
  records: MailDnsRecord[];
};

const piecesOf = (value: string) =>
  Array.from({ length: Math.ceil(value.length / TXT_STRING_MAX) }, (_, i) =>
    value.slice(i * TXT_STRING_MAX, (i + 1) * TXT_STRING_MAX),
  );

const txt = (purpose: Purpose, name: string, value: string, note: string): MailDnsRecord => ({
  purpose,
  name,
  type: 'TXT',
  value,
  strings: piecesOf(value),
  note,
});

// Relays no receiver on the internet ever sees mail come from (a dev catcher, a host on the LAN).
const PRIVATE = new BlockList();
for (const [net, prefix, type] of [
  ['127.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['::1', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
] as const)
  PRIVATE.addSubnet(net, prefix, type);
const unseenFromOutside = (host: string) => {
  const version = isIP(host);
  if (version) return PRIVATE.check(host, version === 4 ? 'ipv4' : 'ipv6');
  return !host.includes('.') || /(^|\.)(localhost|local|internal|lan)$/.test(host);
};

/**
 * The relay's SMTP host is all the service knows of where its mail leaves from: the address itself,
 * or the name's addresses. A provider's outbound servers are often others, listed in its own SPF
 * record, which only its documentation names; the note says so rather than guessing.
 */
function spfRecord(envelopeDomain: string, relay: string): MailDnsRecord {
  const version = isIP(relay);
  const mechanism = version === 4 ? `ip4:${relay}` : version === 6 ? `ip6:${relay}` : `a:${relay}`;
  const unseen = unseenFromOutside(relay)
    ? ` ${relay} is not reachable from the internet: name the relay that really sends.`
    : '';
  return txt(
    'spf',
    envelopeDomain,
    `v=spf1 ${mechanism} -all`,
    `SPF: lets SMTP_URL's relay (${relay}) send for ${envelopeDomain}, the envelope sender's domain. If your relay provider publishes ` +
      `an SPF record, add its include: before -all; merge with any SPF record already there (one per name).` +
      unseen,
  );
}

/** Text as zone-file comments of at most 100 columns. */
function comment(text: string): string[] {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + 1 + word.length <= 100) lines[last] += ` ${word}`;
    else lines.push(`; ${word}`);
  }
  return lines;
}

/**
 * The return path's MX: bounces go to the envelope sender, so its domain must receive mail, at the
 * relay that posts it to the inbound route; only the operator knows that relay's host.
 */
function mxRecord(returnPath: string, inboundMx: string): MailDnsRecord {
  const value = `10 ${inboundMx}.`;
  return {
    purpose: 'mx',
    name: returnPath,
    type: 'MX',
    value,
    strings: [value],
    note:
      `MX: bounces come back to the return path (bounces+<id>.<mac>@${returnPath}); ${inboundMx} must take them ` +
      `and post them to /hooks/email/<workspace id>. If people also receive mail at ${returnPath}, keep its MX ` +
      `and route bounces+* to the inbound relay there, or set MAIL_RETURN_PATH_DOMAIN to a subdomain of its own.`,
  };
}

/** Zone-file lines a person can paste, each record under its note. */
function zoneFile(o: MailDns): string {
  const quoted = (s: string) => `"${s.replace(/["\\]/g, '\\$&')}"`;
  const lines = comment(
    `DNS records for mail from ${o.domain}. In a DNS host's web form, enter each name, and the quoted pieces joined as one value.`,
  );
  for (const r of o.records)
    lines.push(
      '',
      ...comment(r.note),
      `${r.name}. IN ${r.type} ${r.type === 'TXT' ? r.strings.map(quoted).join(' ') : r.value}`,
    );
  if (!o.return_path.inbound_mx)
    lines.push(
      '',
      ...comment(
        `MX: bounces come back to the return path (bounces+<id>.<mac>@${o.return_path.domain}), whose domain needs an MX ` +
          `to the relay that posts mail to /hooks/email/<workspace id>. Run again with --inbound-mx HOST to print it.`,
      ),
    );
  return lines.join('\n') + '\n';
}

export const mailDns = defineOperation({
  name: 'mail.dns',
  title: 'Show the DNS records outbound mail needs',
  description:
    "The records to publish so that receivers (Gmail's and Yahoo's bulk-sender rules) accept the service's mail and its bounces come back: DKIM, the public half of DKIM_PRIVATE_KEY_FILE under DKIM_SELECTOR; SPF for the return path's domain (MAIL_RETURN_PATH_DOMAIN, MAIL_FROM's domain by default), letting SMTP_URL's relay send; an MX for it to the inbound relay, when named; and DMARC with relaxed alignment, starting at p=none with aggregate reports. Only for the domain mail is signed for.",
  returns:
    '{ domain, selector, key_bits, return_path: { domain, envelope_sender, inbound_mx }, records: [{ purpose, name, type, value, strings, note }] }; the admin command prints zone-file lines.',
  requirement: { scope: 'business:read', minRole: 'owner' },
  reach: 'none',
  operatorOnly: true,
  ...READ_ONLY,
  input: yup.object({
    domain: describe(
      yup
        .string()
        .trim()
        .lowercase()
        .required('domain is required')
        .matches(DOMAIN_NAME, 'domain must be a domain name such as example.com'),
      "The domain outbound mail is signed for: DKIM_DOMAIN, or MAIL_FROM's domain when that is unset.",
    ),
    inbound_mx: describe(
      yup
        .string()
        .trim()
        .lowercase()
        .matches(DOMAIN_NAME, 'inbound_mx must be a host name such as mx.inbound.example'),
      "The host of the relay that takes mail for the return path's domain and posts it to the inbound route: its MX record.",
    ),
  }),
  output: object({
    domain: string(),
    selector: string(),
    key_bits: integer({ minimum: 1024 }),
    return_path: object({ domain: string(), envelope_sender: string(), inbound_mx: nullable(string()) }),
    records: arrayOf(
      object({
        purpose: oneOf(['dkim', 'spf', 'mx', 'dmarc']),
        name: string(),
        type: oneOf(['TXT', 'MX']),
        value: string(),
        strings: arrayOf(string({ maxLength: TXT_STRING_MAX }), { minItems: 1 }),
        note: string(),
      }),
    ),
  }),
  doors: {
    admin: {
      command: 'mail dns',
      flags: (f) => ({ domain: f.domain, inbound_mx: f['inbound-mx'] }),
      present: zoneFile,
    },
  },
  summary: (i) => `Show the DNS records for mail from ${i.domain}`,
  run: async (ctx, { domain, inbound_mx }): Promise<MailDns> => {
    const signing = ctx.services.mailSigning;
    if (!signing)
      throw invalid(
        'domain',
        `no DKIM key is configured, so there is nothing to publish for ${domain}: set DKIM_SELECTOR and DKIM_PRIVATE_KEY_FILE (and DKIM_DOMAIN when it is not MAIL_FROM's domain)`,
      );
    if (domain !== signing.domain)
      throw invalid(
        'domain',
        `outbound mail is signed for ${signing.domain}, not ${domain}; to sign for ${domain}, set DKIM_DOMAIN=${domain} (MAIL_FROM's domain or a parent of it) with its own DKIM_SELECTOR and DKIM_PRIVATE_KEY_FILE`,
      );
    const bits = signing.publicKey.asymmetricKeyDetails?.modulusLength ?? 0;
    const publicKey = signing.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    const weak = bits < 2048 ? ` This key has ${bits} bits; 2048 is recommended.` : '';
    const reports = `dmarc-reports@${domain}`;
    const returnPath = signing.returnPath;
    return {
      domain,
      selector: signing.selector,
      key_bits: bits,
      return_path: {
        domain: returnPath,
        envelope_sender: `bounces+<message id>.<mac>@${returnPath}`,
        inbound_mx: inbound_mx ?? null,
      },
      records: [
        txt(
          'dkim',
          `${signing.selector}._domainkey.${domain}`,
          `v=DKIM1; k=rsa; p=${publicKey}`,
          `DKIM: receivers check each message's signature (d=${domain}, s=${signing.selector}) with this key.${weak}`,
        ),
        spfRecord(returnPath, signing.relay),
        ...(inbound_mx ? [mxRecord(returnPath, inbound_mx)] : []),
        txt(
          'dmarc',
          `_dmarc.${domain}`,
          `v=DMARC1; p=none; rua=mailto:${reports}; adkim=r; aspf=r`,
          `DMARC: start at p=none and read the daily reports sent to ${reports} (a mailbox that must exist); ` +
            `once all your mail passes, move to p=quarantine, then p=reject.`,
        ),
      ],
    };
  },
});
