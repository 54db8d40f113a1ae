import type { OperationContext } from '../kernel/operation';
import { BUYING } from './reply-reading';
import type { Lead } from './entities';
import { anyYes } from '../kernel/hooks';
import { inboundMessageKnown, opportunityWanted } from './hooks';
import { leadsIn, type ScoreValues } from './repository/leads';
import { SCORING_VERSION, scoreLead, type ScoreResult } from './scoring';

/** A lead's score by the current rules, and the score row that records it. */
export type Scoring = {
  result: ScoreResult;
  row: ScoreValues;
};

export function scoringOf(
  lead: Parameters<typeof scoreLead>[0],
  hasInbound: boolean,
  trigger: string,
): Scoring {
  const result = scoreLead(lead, hasInbound);
  return {
    result,
    row: {
      total: result.total,
      grade: result.grade,
      confidence: String(result.confidence),
      trigger_event: trigger,
      scoring_version: SCORING_VERSION,
      reasons: result.reasons,
    },
  };
}

/**
 * Scores a (locked) lead with the current rules, stores the score and announces it
 * (`announceQualification`).
 */
export async function qualifyLeadIn(
  ctx: Pick<OperationContext, 'data' | 'emit'>,
  lead: Lead,
  trigger: string,
  /** Whether the lead has an inbound message, when the caller knows. */
  hasInbound?: boolean,
): Promise<Lead> {
  const data = ctx.data.in(lead.workspace_id);
  const scoring = scoringOf(
    lead,
    hasInbound ?? (await anyYes(inboundMessageKnown.raise(data, lead.id))),
    trigger,
  );
  const scored = await leadsIn(data).rescore(lead.id, scoring.row);
  await announceQualification(ctx, scored, scoring, lead.score_grade);
  return scored;
}

/**
 * What a lead's new score (already stored on it) tells: lead.qualified, lead.scored and, when an
 * earlier grade exists and the new one differs, score.changed. A qualified lead whose buying intent
 * is already known becomes an opportunity.
 */
export async function announceQualification(
  ctx: Pick<OperationContext, 'data' | 'emit'>,
  lead: Lead,
  { result: s, row }: Scoring,
  previousGrade: Lead['score_grade'],
): Promise<void> {
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
    score_id: lead.score_id!,
    total: s.total,
    grade: s.grade,
    previous_grade: previousGrade,
    confidence: s.confidence,
    trigger_event: row.trigger_event,
    scoring_version: row.scoring_version,
  };
  await ctx.emit(lead.workspace_id, 'lead.scored', subject, scored);
  if (previousGrade !== null && previousGrade !== s.grade) {
    await ctx.emit(lead.workspace_id, 'score.changed', subject, scored);
  }
  // Qualified with buying intent: a sales opportunity.
  if (s.result === 'QUALIFIED' && lead.intent !== null && BUYING.includes(lead.intent))
    await opportunityWanted.raise(ctx, lead, 'BUYING_INTENT');
}
