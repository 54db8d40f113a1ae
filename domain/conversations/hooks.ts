import type { Data } from '../kernel/data';
import { defineHook } from '../kernel/hooks';
import type { OperationContext } from '../kernel/operation';
import type { Lead, ReplyReading } from '../leads';

/*
 * What the conversations area tells the areas above it, in the caller's transaction (wired in
 * domain/registry.ts).
 */

/**
 * A lead replied (a verified message stored on a thread we wrote on): the agent chasing the lead reads
 * it, and may hand the lead over to a person or stop following up.
 */
export const replyReceived = defineHook<
  [Pick<OperationContext, 'data' | 'emit'>, Lead, { id: string; channel: string }, ReplyReading | null]
>('conversation.reply_received');

/** A person (not an agent) replied to a lead: any hand-over waiting on the lead is resolved. */
export const personReplied = defineHook<[Data, string]>('conversation.person_replied');

/**
 * A proven bounce or complaint (tied to our email by its return path or a listed feedback loop) came back for a campaign's message: the campaign's deliverability
 * brake reads it. Answers whether the campaign was paused.
 */
export const campaignFeedback = defineHook<
  [Pick<OperationContext, 'data' | 'emit' | 'afterCommit' | 'services'>, string],
  boolean
>('conversation.campaign_feedback');
