import type { Data } from '../kernel/data';
import type { Classification } from '../kernel/event-catalogue';
import { defineHook } from '../kernel/hooks';
import type { OperationContext } from '../kernel/operation';
import type { Lead } from './entities';
import type { IntentReading, ReplyReading } from './reply-reading';

type Ctx = Pick<OperationContext, 'data' | 'emit'>;
type LeadRef = Pick<Lead, 'id' | 'workspace_id'>;

/**
 * What an inbound message does to its lead: it needs attention, and its buying intent may move. The
 * message is read once; qualification and a chasing agent act on the same reading.
 */
export type InboundEffect = {
  reply: ReplyReading | null;
  classification: Classification | null;
  intent: IntentReading | undefined;
  changes: Pick<Lead, 'needs_attention'> & Partial<Pick<Lead, 'intent' | 'intent_score'>>;
};

/** The message an intake carried, as the conversations area stores it. */
export type IntakeMessage = { channel: string; body: string; isReply: false };

/*
 * What the leads area tells the areas above it, in the caller's transaction (wired in domain/registry.ts).
 */

/** A lead was booked (BOOKING), or showed buying intent while qualified: its opportunity opens or moves. */
export const opportunityWanted =
  defineHook<[Ctx, LeadRef, 'BOOKING' | 'BUYING_INTENT']>('lead.opportunity_wanted');

/** A lead was won or lost: its open opportunity closes, with the reason. */
export const leadClosed = defineHook<[Ctx, LeadRef, 'WON' | 'LOST', string]>('lead.closed');

/**
 * An intake carried a message: it is stored as the lead's inbound message. The intake wrote the message's
 * effect on the lead already; `before` is the lead's intent and qualification as the message found it.
 */
export const intakeMessageArrived =
  defineHook<
    [
      Ctx,
      Lead,
      IntakeMessage,
      { effect: InboundEffect; before: { intent: Lead['intent']; qualified: boolean } },
    ]
  >('lead.intake_message');

/** Whether the lead wrote to us (an unverified email does not count): scoring counts it. */
export const inboundMessageKnown = defineHook<[Data, string], boolean>('lead.has_inbound');
