import type { Classification } from '../kernel/event-catalogue';
import type { OperationContext } from '../kernel/operation';
import { openOpportunity } from '../sales/opportunities';
import type { Lead } from './entities';
import { BUYING, INTENT_RULES_VERSION, readIntent } from './intent-rules';
import { leadsIn } from './repository/leads';
import { qualificationCompleteness } from './scoring';

/** A lead that finished qualification as qualified: its status says so, or its grade does. */
export const isQualified = (lead: Pick<Lead, 'status' | 'score_grade'>) =>
  lead.status === 'QUALIFIED' || lead.score_grade === 'A' || lead.score_grade === 'B';

/**
 * Moves a (locked) lead's buying intent by one classified inbound message: lead.intent_changed when
 * the state changes (the score alone is kept quietly). A qualified lead whose intent turns to buying
 * becomes an opportunity.
 */
export async function applyIntent(
  ctx: Pick<OperationContext, 'data' | 'emit'>,
  lead: Lead,
  message: { id: string; classification: Classification },
): Promise<void> {
  const reading = readIntent(message.classification, { intent: lead.intent, score: lead.intent_score });
  if (!reading) return;
  const data = ctx.data.in(lead.workspace_id);
  await leadsIn(data).mark(lead.id, { intent: reading.intent, intent_score: reading.score });
  if (reading.intent === lead.intent) return;
  await ctx.emit(
    lead.workspace_id,
    'lead.intent_changed',
    { type: 'lead', id: lead.id },
    {
      lead_id: lead.id,
      intent: reading.intent,
      previous_intent: lead.intent,
      intent_score: reading.score,
      next_best_action: reading.next,
      qualification_completeness: qualificationCompleteness(lead.answers),
      message_id: message.id,
      classification: message.classification,
      rules_version: INTENT_RULES_VERSION,
    },
  );
  if (BUYING.includes(reading.intent) && isQualified(lead))
    await openOpportunity(ctx, lead, 'BUYING_INTENT', 'QUALIFIED');
}
