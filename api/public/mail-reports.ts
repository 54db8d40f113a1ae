import type { ParsedMail } from 'mailparser';

/** The multipart/report kind a message is, if it is one (RFC 6522): `delivery-status`, `feedback-report`. */
function reportType(mail: ParsedMail): string | undefined {
  const type = mail.headers.get('content-type') as
    { value?: string; params?: Record<string, string> } | undefined;
  return type?.value === 'multipart/report' ? type.params?.['report-type']?.toLowerCase() : undefined;
}

/** The Message-ID of the original, from the headers a report returns (text/rfc822-headers or message/rfc822). */
function originalMessageId(mail: ParsedMail): string | undefined {
  return mail.attachments
    .filter((a) => /rfc822/i.test(a.contentType))
    .map((a) => /^Message-ID:\s*(<[^>\s]+>)/im.exec(a.content.toString('utf8'))?.[1])
    .find(Boolean);
}

/** `rfc822; ana@customer.example` or `<ana@customer.example>` → the address, lower-cased. */
const addressIn = (field: string | undefined) =>
  field
    ?.replace(/^rfc822;\s*/i, '')
    .replace(/^<|>$/g, '')
    .trim()
    .toLowerCase() || undefined;

/**
 * A delivery-status report (RFC 3464: `multipart/report; report-type=delivery-status`) for an email of
 * ours: the failed recipient and status, and the Message-ID of the original from its returned headers.
 */
export function deliveryReport(mail: ParsedMail) {
  if (reportType(mail) !== 'delivery-status') return undefined;
  // mailparser folds the message/delivery-status part into the text.
  const text = mail.text ?? '';
  const failed = /^Action:\s*failed/im.test(text);
  const status = /^Status:\s*([245]\.\d{1,3}\.\d{1,3})/im.exec(text)?.[1];
  const original = originalMessageId(mail);
  if (!status || !original) return undefined;
  const recipient = addressIn(/^Final-Recipient:\s*(.+)$/im.exec(text)?.[1]);
  return {
    originalMessageId: original,
    status: failed ? status : status.replace(/^5/, '4'),
    diagnostic: (/^Diagnostic-Code:\s*(.+)$/im.exec(text)?.[1] ?? '').slice(0, 500),
    ...(recipient && { recipient: recipient.slice(0, 320) }),
  };
}

/**
 * A complaint (an ARF feedback report, RFC 5965: `multipart/report; report-type=feedback-report`): a
 * mailbox provider says its user marked an email of ours as spam. Its machine-readable part
 * (message/feedback-report) names the feedback type and the original recipient; the original's
 * headers name its Message-ID.
 */
export function feedbackReport(mail: ParsedMail) {
  if (reportType(mail) !== 'feedback-report') return undefined;
  const fields = mail.attachments.find((a) => /^message\/feedback-report$/i.test(a.contentType));
  const text = fields?.content.toString('utf8') ?? '';
  const feedbackType = /^Feedback-Type:\s*([\w-]+)/im.exec(text)?.[1]?.toLowerCase();
  const original = originalMessageId(mail);
  if (!feedbackType || !original) return undefined;
  const recipient = addressIn(/^Original-Rcpt-To:\s*(.+)$/im.exec(text)?.[1]);
  return {
    originalMessageId: original,
    feedbackType: feedbackType.slice(0, 40),
    ...(recipient && { recipient: recipient.slice(0, 320) }),
  };
}

const ADDRESS = /[^\s<>,;:"()[\]]+@[^\s<>,;:"()[\]]+/g;
const MAX_ADDRESSES = 20;

/**
 * Where a report was delivered, which a return path of ours in it proves: the forwarder's
 * `X-Envelope-To` (the SMTP recipient, which only the receiving MTA saw) when it gives one, else the
 * report's own Delivered-To, X-Original-To and To headers. The latter anyone can write, but only a
 * return path's MAC counts, and only we can make one.
 */
export function deliveredTo(envelopeTo: string, mail: ParsedMail): string[] {
  const given = envelopeTo.match(ADDRESS);
  const found =
    given ??
    mail.headerLines
      .filter((h) => ['delivered-to', 'x-original-to', 'to'].includes(h.key))
      .flatMap((h) => h.line.slice(h.line.indexOf(':') + 1).match(ADDRESS) ?? []);
  return [...new Set(found.map((a) => a.toLowerCase().slice(0, 320)))].slice(0, MAX_ADDRESSES);
}
