/**
 * The conversations area: messages to and from leads on every channel, and what mail reports say of ours.
 * This file is its public face: nothing outside domain/conversations/ imports anything but this file.
 *
 * It offers its operations (the conversation tools, the inbound webhooks' message, bounce and complaint,
 * one-click unsubscribe, the mail DNS records), its tables, the hooks it raises, and what the areas above
 * it and the worker need to queue, send and settle a message: outbound messages, the send attempt, campaign
 * sends, its outbox and upkeep, and the signed links (unsubscribe, personal pages, return paths).
 */

import { recordBounce } from './operations/bounce';
import { recordComplaint } from './operations/complaint';
import { unsubscribeByLink } from './operations/contact-unsubscribe-link';
import { getConversation } from './operations/conversation-get';
import { listConversations } from './operations/conversation-list';
import { replyToConversation } from './operations/conversation-reply';
import { mailDns } from './operations/mail-dns';
import { recordInboundMessage } from './operations/message-inbound';
import { receiveMessage } from './operations/receive';
import { MailReportEntity, MessageEntity } from './entities';

/** The operations this area registers. */
export const operations = {
  recordInboundMessage,
  listConversations,
  getConversation,
  replyToConversation,
  receiveMessage,
  recordBounce,
  recordComplaint,
  unsubscribeByLink,
  mailDns,
} as const;

/** Its tables. */
export const entities = [MessageEntity, MailReportEntity];

/** Its outbox: outbound messages waiting for their sending workflows (the relay reads it). */
export { outboxes } from './outboxes';

/** What it tells the areas above it (domain/registry.ts wires their handlers). */
export { replyReceived, personReplied, campaignFeedback } from './hooks';

/** How it reacts to the areas below it. */
export { listen } from './reactions';

// Operations their callers still import by name (the public webhooks and unsubscribe page, the agents'
// runs); `operations.<name>` is the way in.

/** Why a contact may not be written to on a channel, in words; undefined when they may. */
export { blockedReason } from './outbound';
/** Queues a message to a locked lead in the caller's transaction; the sending workflow hands it over. */
export { queueMessage } from './outbound';

/** Takes a queued message for one hand-over to its provider, in a transaction of its own. */
export { claimSend } from './send';
/** Records what the provider said of a hand-over: sent, retry, failed, or the address suppressed. */
export { settleSend } from './send';
/** A message claimed for a hand-over, and what a claim answers. */
export type { Claim, ClaimedMessage } from './send';
/** The longest one hand-over to a provider may take. */
export { SEND_TIMEOUT_MS } from './sending';
/** What a provider said of one hand-over, and what the attempt ended in for the workflow. */
export type { AttemptOutcome, ProviderResult } from './sending';

/** What the campaign engine asks of its messages: written, sent and settled in batches. */
export { campaignMail } from './campaign-mail';
/** A campaign message about to leave. */
export type { CampaignSend } from './repository/campaign-messages';
/** The background work on messages: unstarted sends, old mail reports (the retention purge). */
export { messageUpkeep } from './repository/upkeep';
/** An outbound message whose sending workflow the relay must start. */
export type { MessageToStart } from './repository/upkeep';

/** The providers' webhook routes (no key: signed by Twilio, or the workspace's inbound secret). */
export { EMAIL_HOOK, SMS_HOOK } from './provider-hooks';
/** Where one-click unsubscribe links point. */
export { UNSUBSCRIBE_PATH } from './unsubscribe-links';
/** Makes and reads one-click unsubscribe links' tokens (keyed from SECRETS_KEY). */
export { unsubscribeLinks } from './unsubscribe-links';
/** Makes and reads personal page links' tokens (a quote's page), keyed per path from SECRETS_KEY. */
export { pageLinks } from './page-links';
/** A message's body as it leaves: the stored words in a page link's place replaced by the link. */
export { bodyWithLink } from './page-links';
/** Per-message return paths (VERP): the envelope sender an email leaves with, and which email one names. */
export { returnPaths } from './return-paths';
