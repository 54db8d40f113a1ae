import { anyYes } from '../kernel/hooks';
import { campaignFeedback } from './hooks';
import { notFound } from '../kernel/errors';
import type { OperationContext } from '../kernel/operation';
import { suppressAddress, type SuppressionView } from '../leads';
import type { Authenticity } from '../kernel/channels';
import type { Feedback, Message } from './entities';
import { messagesIn } from './repository';

/** What a report (a bounce, a complaint) says it is about. */
export type Report = {
  originalMessageId: string;
  /** The recipient the report names (Final-Recipient, Original-Rcpt-To), when it names one. */
  recipient?: string;
  authenticity: Authenticity;
};

/**
 * The email of ours a report is about, held until the transaction ends, or why the report changes
 * nothing: it is not authenticated (a forged report would suppress any address), or it names another
 * recipient than the one the email went to. An email we never sent is not found.
 */
export async function reportedEmail(
  ctx: Pick<OperationContext, 'data'>,
  r: Report,
): Promise<{ msg: Message & { to_address: string }; ignored?: string }> {
  const found = await messagesIn(ctx.data).lockOutboundEmail(r.originalMessageId);
  if (!found?.to_address) throw notFound('email with this Message-ID');
  const msg = { ...found, to_address: found.to_address };
  if (r.authenticity !== 'verified') return { msg, ignored: 'the report is not authenticated' };
  if (r.recipient && r.recipient.toLowerCase() !== msg.to_address.toLowerCase())
    return { msg, ignored: 'the report names another recipient' };
  return { msg };
}

/**
 * What an authenticated report does to an email of ours: it keeps the feedback (once), the address is
 * suppressed (`contact.suppressed`), and a campaign's message feeds the campaign's deliverability brake.
 */
export async function takeFeedback(
  ctx: Pick<OperationContext, 'data' | 'emit' | 'afterCommit' | 'services'>,
  msg: Message & { to_address: string },
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
