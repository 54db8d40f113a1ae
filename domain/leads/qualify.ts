import type { OperationContext } from '../kernel/operation';
import type { LeadRow } from './rows';
import { SCORING_VERSION, scoreLead } from './scoring';

/**
 * Scores a (locked) lead with the current rules and records the outcome: lead.qualified,
 * lead.scored and, when an earlier grade exists and the new one differs, score.changed.
 */
export async function qualifyLeadIn(
  { m, emit }: Pick<OperationContext, 'm' | 'emit'>,
  lead: LeadRow,
  trigger: string,
): Promise<LeadRow> {
  const [{ inbound }] = await m.query<[{ inbound: boolean }]>(
    `SELECT EXISTS (SELECT 1 FROM messages WHERE lead_id = $1 AND direction = 'inbound') AS inbound`,
    [lead.id],
  );
  const s = scoreLead(lead, inbound);
  const [{ id: scoreId }] = await m.query<[{ id: string }]>(
    `INSERT INTO scores (workspace_id, lead_id, total, grade, confidence, trigger_event, scoring_version, reasons)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [
      lead.workspace_id,
      lead.id,
      s.total,
      s.grade,
      s.confidence,
      trigger,
      SCORING_VERSION,
      JSON.stringify(s.reasons),
    ],
  );
  const previousGrade = lead.score_grade;
  const updated = { ...lead, score_id: scoreId, score_total: s.total, score_grade: s.grade };
  await m.query(`UPDATE leads SET score_id = $2, score_total = $3, score_grade = $4 WHERE id = $1`, [
    lead.id,
    scoreId,
    s.total,
    s.grade,
  ]);
  const subject = { type: 'lead' as const, id: lead.id };
  await emit(lead.workspace_id, 'lead.qualified', subject, {
    lead_id: lead.id,
    result: s.result,
    status: lead.status,
    reasons: s.reasons.map((r) => ({ code: r.code })),
    answers: lead.answers,
  });
  const scored = {
    lead_id: lead.id,
    score_id: scoreId,
    total: s.total,
    grade: s.grade,
    previous_grade: previousGrade,
    confidence: s.confidence,
    trigger_event: trigger,
    scoring_version: SCORING_VERSION,
  };
  await emit(lead.workspace_id, 'lead.scored', subject, scored);
  if (previousGrade !== null && previousGrade !== s.grade) {
    await emit(lead.workspace_id, 'score.changed', subject, scored);
  }
  return updated;
}
