import type { GRADES, Lead } from './entities';

/** Bump when any rule or weight below changes; every score records the version that made it. */
export const SCORING_VERSION = 'rules-2026-11-v1';

type Grade = (typeof GRADES)[number];
export type ScoreResult = {
  total: number;
  grade: Grade;
  confidence: number;
  result: 'QUALIFIED' | 'NOT_QUALIFIED';
  reasons: { code: string; points: number }[];
};

const TIMELINE_POINTS: Record<string, number> = {
  now: 20,
  asap: 20,
  this_month: 15,
  this_quarter: 10,
  later: 0,
};
const KNOWN_ANSWERS = ['budget', 'timeline', 'service', 'decision_maker'] as const;

/** The share (0 to 1, three decimals) of the qualification questions a lead has answered. */
export function qualificationCompleteness(answers: Record<string, unknown>): number {
  const answered = KNOWN_ANSWERS.filter(
    (k) => answers[k] !== undefined && answers[k] !== null && answers[k] !== '',
  ).length;
  return Math.round((answered / KNOWN_ANSWERS.length) * 1000) / 1000;
}

const gradeOf = (total: number): Grade => (total >= 75 ? 'A' : total >= 50 ? 'B' : total >= 25 ? 'C' : 'D');

/**
 * Deterministic, rule-based qualification: the same lead and answers always give the same score.
 * Points for being reachable, for a stated timeline and budget, and for an actual message.
 */
export function scoreLead(
  lead: Pick<Lead, 'first_name' | 'last_name' | 'email' | 'phone' | 'postcode' | 'consent_at' | 'answers'>,
  hasInboundMessage: boolean,
): ScoreResult {
  const reasons: { code: string; points: number }[] = [];
  const add = (code: string, points: number) => reasons.push({ code, points });
  if (lead.email) add('HAS_EMAIL', 15);
  if (lead.phone) add('HAS_PHONE', 15);
  if (lead.first_name && lead.last_name) add('FULL_NAME', 5);
  if (lead.postcode) add('HAS_POSTCODE', 5);
  if (lead.consent_at) add('CONSENT_GIVEN', 10);
  if (hasInboundMessage) add('SENT_MESSAGE', 10);
  const a = lead.answers;
  const timeline = typeof a.timeline === 'string' ? a.timeline.toLowerCase() : undefined;
  if (timeline !== undefined)
    add(`TIMELINE_${timeline.toUpperCase().replace(/\W+/g, '_')}`, TIMELINE_POINTS[timeline] ?? 5);
  const budget = typeof a.budget === 'number' ? a.budget : Number(a.budget);
  if (Number.isFinite(budget) && budget > 0) add('HAS_BUDGET', budget >= 1000 ? 15 : 10);
  if (a.decision_maker === true || a.decision_maker === 'yes') add('DECISION_MAKER', 5);
  if (!lead.email && !lead.phone) add('NOT_CONTACTABLE', -100);
  const total = Math.max(
    0,
    Math.min(
      100,
      reasons.reduce((sum, r) => sum + r.points, 0),
    ),
  );
  const grade = gradeOf(total);
  return {
    total,
    grade,
    confidence: qualificationCompleteness(a),
    result: grade === 'A' || grade === 'B' ? 'QUALIFIED' : 'NOT_QUALIFIED',
    reasons,
  };
}
