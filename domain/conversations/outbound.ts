import type { Data } from '../kernel/data';
import { DomainError } from '../kernel/errors';
import { type Lead, suppressionOf } from '../leads';
import { OUTBOUND_CHANNELS, type OutboundChannel } from './channels';
import type { Message, PageLink } from './entities';
import { messagesIn } from './repository/messages';

const MAX_SUBJECT = 200;

/** Why a contact may not be written to on a channel, in words for the caller; undefined when they may. */
export async function blockedReason(data: Data, to: string, channel: string): Promise<string | undefined> {
  const blocked = await suppressionOf(data, to, channel);
  if (blocked === undefined) return undefined;
  return `This contact ${blocked === 'unsubscribed' ? 'opted out of' : 'is blocked on'} ${channel}`;
}

/**
 * Queues a message to a (locked) lead on a channel, in the caller's transaction; the sending workflow
 * hands it to the provider after the commit. Refused when the lead has no address for the channel or
 * opted out of it or is blocked on it: nothing is stored. An email threads on the lead's last email.
 * A personal page's link is not written into the body: `pageLink` names the page, and its label stands
 * in the body where the link goes when the email leaves (page-links.ts).
 */
export async function queueMessage(
  data: Data,
  lead: Lead,
  m: { channel: OutboundChannel; body: string; subject?: string; marketing?: boolean; pageLink?: PageLink },
): Promise<Message> {
  const field = OUTBOUND_CHANNELS[m.channel];
  const to = lead[field];
  if (!to) throw new DomainError('conflict', `The lead has no ${field} to reach on ${m.channel}.`);
  const blocked = await blockedReason(data, to, m.channel);
  if (blocked) throw new DomainError('suppressed', `${blocked}; nothing was sent.`);
  const messages = messagesIn(data);
  let subject = m.subject ?? null;
  let inReplyTo: string | null = null;
  if (m.channel === 'email') {
    const last = await messages.lastInboundEmail(lead.id);
    inReplyTo = last?.provider_message_id ?? null;
    subject ??= last?.subject ? replySubject(last.subject) : null;
  }
  return messages.queue({
    lead_id: lead.id,
    channel: m.channel,
    to_address: to,
    subject,
    body: m.body,
    in_reply_to: inReplyTo,
    marketing: m.marketing ?? false,
    page_link: m.pageLink ?? null,
  });
}

/** "Re: <subject>", once, as mail clients write it. */
const replySubject = (subject: string) =>
  (/^re:/i.test(subject) ? subject : `Re: ${subject}`).slice(0, MAX_SUBJECT);
