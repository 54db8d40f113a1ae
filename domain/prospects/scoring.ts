import { countryOfTimezone } from '../leads';
import type { Prospect, Reason } from './entities';

/**
 * The rules a sourcing run scores candidates with. Deterministic and versioned: a change of points or
 * keywords is a new version, and every score carries the version it was made with.
 */
export const PROSPECT_SCORING_VERSION = 'prospect-rules-2026-11-v1';

/** What a candidate is measured against: the workspace's industry and its country (from its zone). */
export type Profile = { industry: string; timezone: string };

const DECISION_MAKER =
  /\b(owner|founder|co-?founder|ceo|cto|cfo|coo|chief|president|director|head|vp|vice president|partner|principal)\b/i;
const INFLUENCER = /\b(manager|lead|senior|supervisor|coordinator)\b/i;
const COMPLETENESS_FIELDS = [
  'first_name',
  'last_name',
  'email',
  'phone',
  'company',
  'industry',
  'role',
  'country',
] as const;

const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 2);

const regionName = (code: string) => {
  try {
    return new Intl.DisplayNames(['en'], { type: 'region' }).of(code)?.toLowerCase();
  } catch {
    return undefined;
  }
};

type Candidate = Pick<Prospect, (typeof COMPLETENESS_FIELDS)[number]>;

/**
 * Fit out of 100: industry 40 (same as the workspace's, or sharing a word with it), area 20 (the
 * workspace's country, by ISO code or English name), role 25 (a decision maker; 12 for someone who
 * influences one), completeness 15 (of eight contact and firm fields). Each part gives a reason.
 */
export function scoreProspect(p: Candidate, profile: Profile): { score: number; reasons: Reason[] } {
  const reasons: Reason[] = [];
  const own = profile.industry.trim().toLowerCase();
  const theirs = p.industry?.trim().toLowerCase() ?? '';
  if (!own) reasons.push({ code: 'industry_unknown', points: 0, detail: 'the workspace names no industry' });
  else if (!theirs) reasons.push({ code: 'industry_missing', points: 0, detail: 'no industry given' });
  else if (theirs === own || words(theirs).some((w) => words(own).includes(w)))
    reasons.push({ code: 'industry_match', points: 40, detail: `${p.industry} fits ${profile.industry}` });
  else
    reasons.push({
      code: 'industry_mismatch',
      points: 0,
      detail: `${p.industry} is not ${profile.industry}`,
    });

  const country = countryOfTimezone(profile.timezone);
  const where = p.country?.trim().toLowerCase() ?? '';
  if (!where) reasons.push({ code: 'area_missing', points: 0, detail: 'no country given' });
  else if (!country)
    reasons.push({ code: 'area_unknown', points: 0, detail: "the workspace's country is not known" });
  else if (where === country.toLowerCase() || where === regionName(country))
    reasons.push({ code: 'area_match', points: 20, detail: `in ${country}` });
  else reasons.push({ code: 'area_mismatch', points: 0, detail: `${p.country} is outside ${country}` });

  const role = p.role ?? '';
  if (!role) reasons.push({ code: 'role_missing', points: 0, detail: 'no role given' });
  else if (DECISION_MAKER.test(role)) reasons.push({ code: 'decision_maker', points: 25, detail: role });
  else if (INFLUENCER.test(role)) reasons.push({ code: 'influencer', points: 12, detail: role });
  else reasons.push({ code: 'role_other', points: 0, detail: role });

  const present = COMPLETENESS_FIELDS.filter((f) => p[f]).length;
  const points = Math.round((15 * present) / COMPLETENESS_FIELDS.length);
  reasons.push({
    code: 'completeness',
    points,
    detail: `${present} of ${COMPLETENESS_FIELDS.length} fields`,
  });

  return { score: reasons.reduce((sum, r) => sum + r.points, 0), reasons };
}
