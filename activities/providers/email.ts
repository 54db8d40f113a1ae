import type { KeyObject } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import { type ProviderResult, returnPaths, SEND_TIMEOUT_MS } from '../../domain/conversations';
import { providerSpan } from './span';

/** An email as the SMTP provider sends it. */
export type Email = {
  /** Our message id: its return path names it, so a bounce proves which message it is about. */
  id: string;
  /** The Message-ID's left part (`<mailId@domain>`), random and kept on the message: a resend keeps it. */
  mailId: string;
  to: string;
  fromName: string;
  subject: string;
  text: string;
  inReplyTo: string | null;
  /** The one-click unsubscribe link (RFC 8058), in the List-Unsubscribe headers. */
  unsubscribeUrl: string | null;
};

/**
 * The email a message to a lead becomes: the workspace as sender's name, a default subject, and for a
 * marketing message (a campaign's) the unsubscribe link in the text as well as in the headers.
 */
export function composeEmail(m: {
  id: string;
  mailId: string;
  to: string;
  fromName: string;
  subject: string | null;
  body: string;
  inReplyTo: string | null;
  marketing: boolean;
  unsubscribeUrl: string;
}): Email {
  return {
    id: m.id,
    mailId: m.mailId,
    to: m.to,
    fromName: m.fromName,
    subject: m.subject ?? `A message from ${m.fromName}`,
    text: m.marketing
      ? `${m.body}\n\n--\nTo stop receiving these emails, unsubscribe: ${m.unsubscribeUrl}\n`
      : m.body,
    inReplyTo: m.inReplyTo,
    unsubscribeUrl: m.unsubscribeUrl,
  };
}

/** Why an email could not be handed over when no SMTP server is configured. */
export const NO_SMTP = { kind: 'permanent', error: 'no SMTP server is configured (SMTP_URL)' } as const;

export type EmailProvider = {
  send: (email: Email) => Promise<ProviderResult>;
  /** The Message-ID an email of ours carries (from its `mailId`), for threading and for the record. */
  messageIdOf: (mailId: string) => string;
  close: () => void;
};

// Answers that say the mailbox or domain does not exist or will never accept mail: a hard bounce.
// Other 5xx (a message refused for its content, a policy) fail the message but keep the address.
const HARD_BOUNCE_CODES = new Set([550, 551, 553, 556]);
const NOT_CONNECTED = new Set(['ECONNECTION', 'EDNS', 'ECONNREFUSED', 'ETLS', 'EAUTH', 'ENOTFOUND']);
const HARD_BOUNCE_STATUS = /\b5\.1\.[0-9]\b/; // RFC 3463: bad destination mailbox or system address

/**
 * The header fields a DKIM signature covers: nodemailer's own list (`dkim/sign.js`, after RFC 4871
 * 5.5), which lacks List-Unsubscribe-Post. Gmail and Yahoo honour one-click unsubscribe only when the
 * signature covers both List-Unsubscribe and List-Unsubscribe-Post (RFC 8058 section 4).
 */
const DKIM_SIGNED_HEADERS =
  'From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:' +
  'Content-Transfer-Encoding:Content-ID:Content-Description:Resent-Date:Resent-From:Resent-Sender:' +
  'Resent-To:Resent-Cc:Resent-Message-ID:In-Reply-To:References:List-Id:List-Help:List-Unsubscribe:' +
  'List-Subscribe:List-Post:List-Owner:List-Archive:OTP-Token:List-Unsubscribe-Post';

/** The key outbound mail is signed with (`DKIM_*`); `domain` is the `d=` receivers align with From. */
export type DkimKey = { domain: string; selector: string; privateKey: KeyObject | string };

/**
 * Email over SMTP (`SMTP_URL`), with nodemailer's pool: one connection per few messages rather than a
 * handshake each. The sender address comes from `MAIL_FROM`; the display name is the workspace's.
 * With a DKIM key every message is signed. With `secretsKey`, each message's envelope sender is its
 * own return path (`bounces+<id>.<mac>@returnPathDomain`), which proves a bounce is about it; without
 * it (tests that read no reports), the envelope sender is `MAIL_FROM`.
 */
export function smtpProvider(opts: {
  url: string;
  from: string;
  pool?: number;
  dkim?: DkimKey;
  returnPathDomain?: string;
  secretsKey?: Buffer;
}): EmailProvider {
  const domain = opts.from.split('@')[1] ?? 'localhost';
  const messageIdOf = (mailId: string) => `<${mailId}@${domain}>`;
  const paths = opts.secretsKey && returnPaths(opts.secretsKey);
  const returnPathDomain = opts.returnPathDomain ?? domain;
  const smtpHost = new URL(opts.url).hostname;
  const transport: Transporter = nodemailer.createTransport({
    url: opts.url,
    pool: true,
    maxConnections: opts.pool ?? 5,
    maxMessages: 1_000,
    connectionTimeout: SEND_TIMEOUT_MS,
    greetingTimeout: SEND_TIMEOUT_MS / 2,
    socketTimeout: SEND_TIMEOUT_MS,
    ...(opts.dkim && {
      dkim: {
        domainName: opts.dkim.domain,
        keySelector: opts.dkim.selector,
        privateKey: opts.dkim.privateKey,
        headerFieldNames: DKIM_SIGNED_HEADERS,
      },
    }),
  });
  const sendOne = async (email: Email): Promise<ProviderResult> => {
    try {
      await transport.sendMail({
        from: { name: email.fromName, address: opts.from },
        to: email.to,
        subject: email.subject,
        text: email.text,
        messageId: messageIdOf(email.mailId),
        ...(paths && { envelope: { from: paths.address(email.id, returnPathDomain), to: email.to } }),
        ...(email.inReplyTo && { inReplyTo: email.inReplyTo, references: [email.inReplyTo] }),
        ...(email.unsubscribeUrl && {
          list: { unsubscribe: { url: email.unsubscribeUrl, comment: 'Unsubscribe' } },
          // RFC 8058: a POST to the List-Unsubscribe URL unsubscribes at once (Gmail and Yahoo need it).
          headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
        }),
      });
      return { kind: 'sent', providerMessageId: messageIdOf(email.mailId) };
    } catch (err) {
      return classify(err);
    }
  };
  return {
    messageIdOf,
    close: () => transport.close(),
    send: (email) => providerSpan('SMTP send', smtpHost, () => sendOne(email)),
  };
}

/** What an SMTP failure means: 5xx is permanent (and a hard bounce blocks the address); the rest is transient. */
function classify(err: unknown): ProviderResult {
  const e = err as {
    responseCode?: number;
    response?: string;
    code?: string;
    command?: string;
    message?: string;
  };
  const said = (e.response ?? e.message ?? String(err)).slice(0, 300);
  const code = e.responseCode;
  if (code !== undefined && code < 500) return { kind: 'transient', error: `SMTP ${code}: ${said}` };
  if (code === undefined) {
    // Cut off with no answer: before the server had the message (connecting, greeting, envelope) it
    // is safe to try again; once the message was on its way, it may have been taken.
    const before =
      e.command === 'CONN' ||
      NOT_CONNECTED.has(e.code ?? '') ||
      /^(EHLO|HELO|MAIL|RCPT)/.test(e.command ?? '');
    return { kind: 'transient', error: `${e.code ?? 'error'}: ${said}`, ...(!before && { maybeSent: true }) };
  }
  const bounce = HARD_BOUNCE_CODES.has(code) || HARD_BOUNCE_STATUS.test(said);
  return { kind: 'permanent', error: `SMTP ${code}: ${said}`, ...(bounce && { block: 'bounce' as const }) };
}
