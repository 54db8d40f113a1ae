import { anyYes } from '../kernel/hooks';
import { campaignFeedback } from './hooks';
import type { OperationContext } from '../kernel/operation';
import { suppressAddress, type SuppressionView } from '../leads';
import type { Feedback, MailReport, Message, ReportProof } from './entities';
import { mailReportsIn } from './repository/mail-reports';
import { messagesIn } from './repository/messages';
import { returnPaths } from './return-paths';

/** What a report (a bounce, a complaint) says of itself, as the inbound route read it. */
export type Report = {
  /** The Message-ID of the email it is about, from the headers it returns. */
  originalMessageId: string;
  /** The recipient it names (Final-Recipient, Original-Rcpt-To), when it names one. */
  recipient?: string;
  /** Where it was delivered: the forwarder's X-Envelope-To, else its Delivered-To, X-Original-To and To. */
  deliveredTo: string[];
  /** Its From domain, as the authentication checks read it. */
  fromDomain?: string;
  /** Domains whose DKIM signature on it passes, covering From and the whole body. */
  signedBy: string[];
  /** Its own Message-ID: a replay is stored, and acts, once. */
  reportMessageId?: string;
};

type Kind = MailReport['kind'];
type Email = Message & { to_address: string };
type Proof = { proven: true; proof: ReportProof } | { proven: false; reason: string };

/** The domain is the listed one or under it. */
const under = (domain: string, listed: string) => domain === listed || domain.endsWith(`.${listed}`);

/** Whether a Message-ID is the one this email of ours carried (`<mail_id@domain>`, or as recorded). */
const carried = (msg: Message, messageId: string) =>
  messageId === msg.provider_message_id ||
  /^<([^@>\s]+)@/.exec(messageId)?.[1]?.toLowerCase() === msg.mail_id;

/**
 * Whether a report is proven to be about an email we sent, or why not. The one rule for every report:
 * a stranger can sign mail for a domain of their own and can learn a Message-ID, so neither proves
 * anything. What does:
 * - `verp`: it was delivered to the email's own return path, whose MAC only we can make, and it names
 *   that email's Message-ID; a bounce is proven this way only;
 * - `feedback_domain` (a complaint only): it comes From a feedback loop on MAIL_FEEDBACK_DOMAINS (or a
 *   subdomain), with a DKIM signature by that domain covering From and the whole body.
 * Either way it must name the recipient the email went to.
 */
function reportProof(
  kind: Kind,
  r: Report,
  msg: Email | null,
  returnPath: { messageId: string } | 'mac' | undefined,
  feedbackDomains: string[],
): Proof {
  if (!msg) return { proven: false, reason: 'it names no email we sent' };
  let proof: ReportProof | undefined;
  if (typeof returnPath === 'object') {
    if (returnPath.messageId !== msg.id || !carried(msg, r.originalMessageId))
      return { proven: false, reason: 'its return path is for another email than the one it names' };
    proof = 'verp';
  } else if (
    kind === 'complaint' &&
    feedbackDomains.some(
      (listed) => !!r.fromDomain && under(r.fromDomain, listed) && r.signedBy.some((d) => under(d, listed)),
    )
  )
    proof = 'feedback_domain';
  if (!proof) {
    const path =
      returnPath === 'mac'
        ? "its return path's MAC is wrong"
        : 'it was not delivered to a return path of ours';
    return {
      proven: false,
      reason:
        kind === 'bounce'
          ? path
          : `${path}, and it is no signed complaint from a feedback loop on MAIL_FEEDBACK_DOMAINS`,
    };
  }
  if (!r.recipient) return { proven: false, reason: 'it does not name the recipient' };
  if (r.recipient.toLowerCase() !== msg.to_address.toLowerCase())
    return { proven: false, reason: 'it names another recipient than the email went to' };
  return { proven: true, proof };
}

/**
 * Takes in a report: finds the email it is about (by the return path it reached, else by the Message-ID
 * it names) and holds it until the transaction ends, judges it (`reportProof`) and stores it, proven or
 * not. `fresh` is false for a replay of a report already stored, which then acts on nothing.
 */
export async function fileReport(
  ctx: Pick<OperationContext, 'data' | 'services'>,
  kind: Kind,
  r: Report,
  details: Pick<MailReport, 'status' | 'feedback_type'>,
): Promise<{ msg: Email | null; proof: Proof; fresh: boolean }> {
  const { secretsKey, mailFeedbackDomains } = ctx.services;
  const paths = secretsKey ? returnPaths(secretsKey) : undefined;
  const read = r.deliveredTo.map((a) => paths?.read(a));
  const returnPath = read.find((p) => typeof p === 'object') ?? read.find((p) => p === 'mac');
  const messages = messagesIn(ctx.data);
  const found =
    (typeof returnPath === 'object'
      ? await messages.lockOutboundEmail({ id: returnPath.messageId })
      : null) ?? (await messages.lockOutboundEmail({ messageId: r.originalMessageId }));
  const msg = found?.to_address ? { ...found, to_address: found.to_address } : null;
  const proof = reportProof(kind, r, msg, returnPath, mailFeedbackDomains ?? []);
  const fresh = await mailReportsIn(ctx.data).file({
    message_id: msg?.id ?? null,
    kind,
    proven: proof.proven,
    proof: proof.proven ? proof.proof : null,
    reason: proof.proven ? null : proof.reason,
    ...details,
    report_message_id: r.reportMessageId ?? null,
  });
  return { msg, proof, fresh };
}

type Filed = Awaited<ReturnType<typeof fileReport>>;

/**
 * What a filed report does, and what its audit row says: a fresh, proven report whose email `acts`
 * (a permanent failure not yet recorded, a complaint not yet kept) takes its feedback; the details name
 * the email, the proof or why there is none, a replay, and a campaign the brake paused. One shape for
 * every report operation.
 */
export async function settleReport(
  ctx: Pick<OperationContext, 'data' | 'emit' | 'afterCommit' | 'services'>,
  { msg, proof, fresh }: Filed,
  acts: (msg: Email) => boolean,
  feedback: Feedback,
  change: Partial<Message> & { source: string },
): Promise<{ recorded: boolean; audit: Record<string, unknown> }> {
  const target = fresh && proof.proven && msg && acts(msg) ? msg : undefined;
  const taken = target ? await takeFeedback(ctx, target, feedback, change) : undefined;
  return {
    recorded: !!target,
    audit: {
      message_id: msg?.id ?? null,
      ...(proof.proven ? { proof: proof.proof } : { unproven: proof.reason }),
      recorded: !!target,
      ...(!fresh && { replayed: true }),
      ...(taken?.braked && { campaign_paused: target!.campaign_id }),
    },
  };
}

/**
 * What a proven report does to an email of ours: it keeps the feedback (once), the address is
 * suppressed (`contact.suppressed`), and a campaign's message feeds the campaign's deliverability brake.
 */
async function takeFeedback(
  ctx: Pick<OperationContext, 'data' | 'emit' | 'afterCommit' | 'services'>,
  msg: Email,
  feedback: Feedback,
  change: Partial<Message> & { source: string },
): Promise<{ suppression: SuppressionView; braked: boolean }> {
  const { source, ...values } = change;
  await messagesIn(ctx.data).change(msg.id, { ...values, feedback });
  const suppression = await suppressAddress(ctx, msg.workspace_id, {
    address: msg.to_address,
    channel: 'email',
    reason: feedback === 'complaint' ? 'complaint' : 'bounce',
    source,
  });
  const braked = msg.campaign_id ? await anyYes(campaignFeedback.raise(ctx, msg.campaign_id)) : false;
  return { suppression, braked };
}
