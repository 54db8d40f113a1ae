import type { Classification } from '../kernel/event-catalogue';
import type { OperationContext } from '../kernel/operation';
import type { Lead } from './entities';
import { opportunityWanted, type InboundEffect } from './hooks';
import { BUYING, REPLY_RULES_VERSION, readIntent, readReply, type IntentReading } from './reply-reading';
import { qualificationCompleteness } from './scoring';

/** A lead that finished qualification as qualified: its status says so, or its grade does. */
export const isQualified = (lead: Pick<Lead, 'status' | 'score_grade'>) =>
  lead.status === 'QUALIFIED' || lead.score_grade === 'A' || lead.score_grade === 'B';

/**
 * What a stored move of a lead's buying intent by one classified inbound message tells:
 * lead.intent_changed when the state changed (the score alone is kept quietly). A lead that was
 * qualified before the message and whose intent turns to buying becomes an opportunity. `before` is
 * the lead as the message found it.
 */
export async function announceIntent(
  ctx: Pick<OperationContext, 'data' | 'emit'>,
  lead: Lead,
  reading: IntentReading,
  message: { id: string; classification: Classification },
  before: { intent: Lead['intent']; qualified: boolean },
): Promise<void> {
  if (reading.intent === before.intent) return;
  await ctx.emit(
    lead.workspace_id,
    'lead.intent_changed',
    { type: 'lead', id: lead.id },
    {
      lead_id: lead.id,
      intent: reading.intent,
      previous_intent: before.intent,
      intent_score: reading.score,
      next_best_action: reading.next,
      qualification_completeness: qualificationCompleteness(lead.answers),
      message_id: message.id,
      classification: message.classification,
      rules_version: REPLY_RULES_VERSION,
    },
  );
  if (BUYING.includes(reading.intent) && before.qualified)
    await opportunityWanted.raise(ctx, lead, 'BUYING_INTENT');
}

/** What an inbound message with this body does to the lead, read once by the reply rules. */
export function inboundEffect(lead: Pick<Lead, 'intent' | 'intent_score'>, body: string): InboundEffect {
  const reply = readReply(body);
  const classification = reply?.classification ?? null;
  const intent = classification
    ? readIntent(classification, { intent: lead.intent, score: lead.intent_score })
    : undefined;
  return {
    reply,
    classification,
    intent,
    changes: {
      needs_attention: true,
      ...(intent && { intent: intent.intent, intent_score: intent.score }),
    },
  };
}
