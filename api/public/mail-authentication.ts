import { isIP } from 'node:net';
import {
  authenticate,
  type DKIMResult,
  dkimVerify,
  dmarc,
  type DMARCResult,
  type DNSResolver,
  type SPFResult,
} from 'mailauth';
import { getDomain } from 'tldts';
import type { Authenticity } from '../../domain/kernel/channels';

/**
 * What the mail provider saw of the SMTP session, which the message itself cannot prove: the client's
 * address and HELO name and the envelope sender (MAIL FROM). SPF needs them.
 * - `given`: the forwarder says them, in the request's X-Envelope-* headers (a relay or a pipe
 *   from the workspace's own MTA, a provider that forwards them);
 * - `received`: the provider's own MX wrote the topmost Received header (and Return-Path), so they
 *   are read from there (mailauth's `trustReceived`);
 * - absent: SPF is not checked, and the verdict rests on DKIM and DMARC alignment alone.
 */
export type Envelope =
  { source: 'given'; ip: string; helo?: string; mailFrom?: string } | { source: 'received' };

/** The verdict on one inbound message: whether its From domain is proven, and by what. */
export type MailVerdict = {
  authenticity: Authenticity;
  /**
   * The checks in words, domains only (never an address): "dkim=pass (customer.example);
   * spf=not checked (no client address); dmarc=pass (customer.example, p=reject)".
   */
  results: string;
  /** The From header's address, as checked; empty when the message has none (or several). */
  from: string;
  /** Domains whose DKIM signature passes and counts: it signs From and the whole body. */
  signedBy: string[];
};

/**
 * What mailauth 4.13 gives of a signature beyond its declared type (lib/dkim/dkim-verifier.js): the
 * header fields it covers (`signingHeaders.keys`, "From: To: Subject") and how much of the canonical
 * body it hashed (`canonBodyLength`) out of the whole (`canonBodyLengthTotal`) under an `l=` tag.
 */
type Signature = DKIMResult & {
  signingHeaders?: { keys?: string };
  canonBodyLength?: number;
  canonBodyLengthTotal?: number;
  canonBodyLengthLimited?: boolean;
  canonBodyLengthLimit?: number;
};

/**
 * Why a passing signature does not count, or undefined when it does. RFC 6376 requires From to be
 * signed: a signature without it vouches for a message whose sender anyone may rewrite. An `l=` shorter
 * than the body leaves the rest unsigned, and a reader cannot tell the signed words from the appended
 * ones; we refuse such a signature rather than cut the body at `l=` (as Gmail does: nothing we store or
 * read then depends on where a signer chose to stop).
 */
function weakness(s: Signature): string | undefined {
  const covered = (s.signingHeaders?.keys ?? '').split(':').map((k) => k.trim().toLowerCase());
  if (!covered.includes('from')) return 'does not sign From';
  if (s.canonBodyLengthLimited && (s.canonBodyLengthTotal ?? 0) > (s.canonBodyLength ?? 0))
    return `l=${s.canonBodyLengthLimit} covers part of the body`;
  return undefined;
}

const TLD_OPTIONS = { allowIcannDomains: true, allowPrivateDomains: true };
const orgDomain = (domain: string) => {
  const d = domain.toLowerCase().replace(/\.$/, '');
  return getDomain(d, TLD_OPTIONS) ?? d;
};

/** Relaxed alignment (RFC 7489 §3.1): the two domains share their organisational domain. */
const aligned = (a: string, b: string) => !!a && !!b && orgDomain(a) === orgDomain(b);

/**
 * Authenticates an inbound message before it may act: DKIM, SPF (when the envelope is known) and
 * DMARC, computed with mailauth; DNS answers come from `resolver` (the system's otherwise).
 *
 * `verified` needs an aligned pass: a DKIM signature that verifies for the From domain's
 * organisational domain, signing From and the whole body, or an SPF pass for an envelope domain aligned
 * with it. DMARC is evaluated on those same passes, so a signature that does not count cannot pass it
 * either. A DMARC record that fails is never overridden; a domain without one still needs that aligned
 * pass. Anything else (unsigned, a signature by another domain, a broken body, a signature that leaves
 * From or part of the body out, a DNS failure) is `unverified`.
 */
export async function authenticateMail(
  raw: Buffer,
  opts: { resolver?: DNSResolver; envelope?: Envelope; mta?: string },
): Promise<MailVerdict> {
  const { resolver, envelope } = opts;
  const mta = opts.mta ?? 'inbound.lead-service';
  let dkim;
  let spf: SPFResult | false | undefined;
  if (envelope) {
    const r = await authenticate(raw, {
      resolver,
      mta,
      disableArc: true,
      disableBimi: true,
      disableDmarc: true,
      ...(envelope.source === 'given'
        ? { ip: envelope.ip, helo: envelope.helo, sender: envelope.mailFrom }
        : { trustReceived: true }),
    });
    ({ dkim, spf } = r);
  } else {
    dkim = await dkimVerify(raw, { resolver });
  }
  // A pass names its signing domain; one without is no signature to count.
  const counted = (dkim.results as Signature[]).flatMap((r) =>
    r.status.result === 'pass' && r.signingDomain && !weakness(r)
      ? [{ ...r, signingDomain: r.signingDomain }]
      : [],
  );
  const spfPass = spf && spf.status.result === 'pass' ? spf.domain : '';
  const policy: DMARCResult | false =
    dkim.headerFrom.length === 1
      ? await dmarc({
          headerFrom: dkim.headerFrom[0]!,
          dkimDomains: counted.map((r) => ({ id: r.id, domain: r.signingDomain, aligned: r.status.aligned })),
          spfDomains: spfPass ? [spfPass] : [],
          resolver,
        })
      : false;
  const from = dkim.headerFrom.length === 1 ? dkim.headerFrom[0]!.toLowerCase() : '';
  const fromDomain = from.split('@').pop() ?? '';
  const signedBy = [...new Set(counted.map((r) => r.signingDomain.toLowerCase()))];
  const alignedPass =
    signedBy.some((d) => aligned(d, fromDomain)) || (spfPass !== '' && aligned(spfPass, fromDomain));
  const policyResult = policy ? policy.status.result : 'none';
  const verified = fromDomain !== '' && alignedPass && (policyResult === 'pass' || policyResult === 'none');
  return {
    authenticity: verified ? 'verified' : 'unverified',
    from,
    signedBy,
    results: [
      `dkim=${dkimWords(dkim.results)}`,
      `spf=${spf ? `${spf.status.result}${spf.domain ? ` (${spf.domain})` : ''}` : 'not checked (no client address)'}`,
      `dmarc=${policyResult}${policy ? ` (${policy.domain}${policy.p ? `, p=${policy.p}` : ''})` : ''}`,
    ].join('; '),
  };
}

/**
 * Each signature's result and domain, with mailauth's reason for one that did not pass ("From field not
 * signed", "body hash did not verify") and ours for a pass that does not count; `none` for a message
 * without one.
 */
function dkimWords(results: Signature[]) {
  const signed = results.filter((r) => r.signingDomain);
  if (signed.length === 0) return 'none';
  return signed
    .map((r) => {
      if (r.status.result !== 'pass')
        return `${r.status.result} (${r.signingDomain}${r.status.comment ? `: ${r.status.comment}` : ''})`;
      const weak = weakness(r);
      return `pass (${r.signingDomain})${weak ? ` but ${weak}` : ''}`;
    })
    .join(', ');
}

/**
 * The envelope a request carries: `X-Envelope-Client-IP` (with optional `X-Envelope-Helo` and
 * `X-Envelope-From`), or `?envelope=received` when the provider's MX wrote the topmost Received
 * header. The request is already proven to come from the workspace's forwarder (its secret), and a
 * sender cannot set either: only the forwarder does. An address that does not parse is ignored.
 */
export function envelopeOf(
  get: (header: string) => string,
  query: Record<string, unknown>,
): Envelope | undefined {
  const ip = get('X-Envelope-Client-IP')
    .trim()
    .replace(/^\[|\]$/g, '');
  if (ip && isIP(ip)) {
    const helo = get('X-Envelope-Helo').trim().slice(0, 255);
    const mailFrom = get('X-Envelope-From').trim().replace(/^<|>$/g, '').slice(0, 320);
    return { source: 'given', ip, ...(helo && { helo }), ...(mailFrom && { mailFrom }) };
  }
  return query.envelope === 'received' ? { source: 'received' } : undefined;
}
