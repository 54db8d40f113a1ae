import { messagesIn } from '../conversations/repository';
import type { OperationContext } from '../kernel/operation';
import { openOpportunity } from '../sales/opportunities';
import { BUYING } from './intent-rules';
import type { Lead } from './entities';
import { leadsIn } from './repository/leads';
import { SCORING_VERSION, scoreLead } from './scoring';

/**
 * Scores a (locked) lead with the current rules and records the outcome: lead.qualified,
 * lead.scored and, when an earlier grade exists and the new one differs, score.changed. A qualified
 * lead whose buying intent is already known becomes an opportunity.
 */
export async function qualifyLeadIn(
  ctx: Pick<OperationContext, 'data' | 'emit'>,
  lead: Lead,
  trigger: string,
  /** Whether the lead has an inbound message, when the caller knows (a lead it has just created). */
  hasInbound?: boolean,
): Promise<Lead> {
  const data = ctx.data.in(lead.workspace_id);
  const leads = leadsIn(data);
  const s = scoreLead(lead, hasInbound ?? (await messagesIn(data).hasInbound(lead.id)));
  const score = await leads.addScore({
    lead_id: lead.id,
    total: s.total,
    grade: s.grade,
    confidence: String(s.confidence),
    trigger_event: trigger,
    scoring_version: SCORING_VERSION,
    reasons: s.reasons,
  });
  await leads.setScore(lead.id, { id: score.id, total: s.total, grade: s.grade });
  const previousGrade = lead.score_grade;
  const subject = { type: 'lead' as const, id: lead.id };
  await ctx.emit(lead.workspace_id, 'lead.qualified', subject, {
    lead_id: lead.id,
    result: s.result,
    status: lead.status,
    reasons: s.reasons.map((r) => ({ code: r.code })),
    answers: lead.answers,
  });
  const scored = {
    lead_id: lead.id,
    score_id: score.id,
    total: s.total,
    grade: s.grade,
    previous_grade: previousGrade,
    confidence: s.confidence,
    trigger_event: trigger,
    scoring_version: SCORING_VERSION,
  };
  await ctx.emit(lead.workspace_id, 'lead.scored', subject, scored);
  if (previousGrade !== null && previousGrade !== s.grade) {
    await ctx.emit(lead.workspace_id, 'score.changed', subject, scored);
  }
  // Qualified with buying intent: a sales opportunity.
  if (s.result === 'QUALIFIED' && lead.intent !== null && BUYING.includes(lead.intent))
    await openOpportunity(ctx, lead, 'BUYING_INTENT', 'QUALIFIED');
  return { ...lead, score_id: score.id, score_total: s.total, score_grade: s.grade };
}
