import type { Data } from '../kernel/data';
import type { Effect } from '../kernel/effect';
import { campaignsIn } from './repository/campaigns';

/** "1,240 people", "1 person". */
export const people = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'person' : 'people'}`;

/**
 * "the email campaign "Spring offer" (3 steps)", for a person reading what they approve: from the
 * call's effect when it has one, else from the record (or its id).
 */
export async function described(i: { campaignId: string }, look?: Data, effect?: Effect): Promise<string> {
  const c = effect
    ? (effect.bound as { name: string; channel: string; steps: unknown[] })
    : look && (await campaignsIn(look).find(i.campaignId));
  return c
    ? `the ${c.channel} campaign "${c.name}" (${c.steps.length} step${c.steps.length === 1 ? '' : 's'})`
    : `campaign ${i.campaignId}`;
}

/** Who it reaches, as counted when the request parked: "1,240 people" (or "its audience" without a count). */
export const reach = (effect?: Effect) =>
  effect?.counted?.audience !== undefined ? people(effect.counted.audience) : 'its audience';
