import type { Data } from '../kernel/data';
import type { Effect } from '../kernel/effect';
import type { Agent, Cadence, Limits, ReviewLevel, Sources } from './entities';
import { agentOf, agentsIn } from './repository/agents';
import { cadenceText } from './views';

/** What an agent may do: the settings a person approves when it starts or widens. */
export type Settings = {
  review_level: ReviewLevel;
  limits: Limits;
  sources: Sources;
  cadence: Cadence | null;
};

export const settingsOf = (a: Agent): Settings => ({
  review_level: a.review_level,
  limits: a.limits,
  sources: a.sources,
  cadence: a.cadence,
});

/**
 * What a person approves when an agent starts, runs or widens: its type and name, review level, limits,
 * sources and cadence, each a bound part (an edit to any refuses the approved run, naming it).
 */
export const agentBound = (a: Agent) => ({ type: a.type, name: a.name, ...settingsOf(a) });
type AgentBound = ReturnType<typeof agentBound>;

const LIMIT_NAMES: Record<keyof Limits, string> = {
  per_run: 'per run',
  per_day: 'per day',
  per_lead_per_week: 'per lead per week',
};

const added = (before: string[] | undefined, after: string[] | undefined) =>
  (after ?? []).filter((x) => !(before ?? []).includes(x));

/**
 * A lead filter (statuses, sources) matches any lead while empty: it widens when it empties, or when
 * it names something new while it was not empty.
 */
function filterWidens(name: string, before: string[] | undefined, after: string[] | undefined): string[] {
  if (!before?.length) return [];
  if (!after?.length) return [`${name} ${before.join(', ')} → any`];
  const more = added(before, after);
  return more.length ? [`${name} adds ${more.join(', ')}`] : [];
}

/**
 * How a change of settings widens what an agent may do, in words ("review level draft → send",
 * "per run 25 → 200"); empty when it only narrows or keeps. Widening: drafts to sending, a higher
 * limit, a lead filter that names more or empties (any), a new prospect list, a new day in the cadence.
 * Narrowing (send → draft, lower limits, fewer sources) and a new time of day do not widen.
 */
export function widenings(before: Settings, after: Settings): string[] {
  const out: string[] = [];
  if (before.review_level === 'draft' && after.review_level === 'send')
    out.push('review level draft → send (its messages go out without review)');
  for (const k of Object.keys(LIMIT_NAMES) as (keyof Limits)[])
    if (after.limits[k] > before.limits[k])
      out.push(`${LIMIT_NAMES[k]} ${before.limits[k]} → ${after.limits[k]}`);
  out.push(...filterWidens('lead statuses', before.sources.lead_statuses, after.sources.lead_statuses));
  out.push(...filterWidens('lead sources', before.sources.lead_sources, after.sources.lead_sources));
  const lists = added(before.sources.prospect_lists, after.sources.prospect_lists);
  if (lists.length) out.push(`prospect lists add ${lists.join(', ')}`);
  if (before.cadence && after.cadence) {
    const days = after.cadence.days.filter((d) => !before.cadence!.days.includes(d));
    if (days.length) out.push(`cadence ${cadenceText(before.cadence)} → ${cadenceText(after.cadence)}`);
  }
  return out;
}

/** The review level and limits, in words, for a person reading what they approve. */
export const settingsText = (s: Settings) =>
  `review level ${s.review_level} (${
    s.review_level === 'send'
      ? 'its messages are sent at once'
      : 'its messages wait for a person to review them'
  }), up to ${s.limits.per_run} a run, ${s.limits.per_day} a day and ${s.limits.per_lead_per_week} per lead a week`;

/** What a person approves when an agent starts or runs (`agentBound`), read under its lock when `lock`. */
export const agentEffect = async (
  i: { agentId: string },
  data: Data,
  opts: { lock: boolean },
): Promise<Effect> => ({ bound: agentBound(await agentOf(data, i.agentId, opts)) });

/** The settings a person approves: from the call's effect when it has one, else read from the record. */
export async function settingsFor(
  i: { agentId: string },
  look?: Data,
  effect?: Effect,
): Promise<Settings | undefined> {
  if (effect) return effect.bound as AgentBound;
  const a = look && (await agentsIn(look).find(i.agentId));
  return a ? settingsOf(a) : undefined;
}

/** "the follow-up agent "Chaser"", for a person reading what they approve. */
const agentNamed = (a: Pick<Agent, 'type' | 'name'>) => `the ${a.type.replace('_', '-')} agent "${a.name}"`;

/** `agentNamed`, from the call's effect when it has one, else from the record (or its id). */
export async function described(i: { agentId: string }, look?: Data, effect?: Effect): Promise<string> {
  const a = effect ? (effect.bound as AgentBound) : look && (await agentsIn(look).find(i.agentId));
  return a ? agentNamed(a) : `agent ${i.agentId}`;
}
