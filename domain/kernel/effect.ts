import { createHash } from 'node:crypto';
import { DomainError } from './errors';
import { canonicalJson } from './idempotency';

/**
 * What a gated call will do, read from its target as it stands, in the words an approver checks:
 * `bound` holds the named parts that must be the same when the approved call runs (a campaign's
 * `steps`, `audience`; an agent's `review_level`, `limits`), `counted` what was counted as it parked and
 * is shown but not bound (the audience's size then), and `members` the records it reaches, as they were
 * when it parked (a campaign's audience: its leads).
 */
export type Effect = {
  bound: Record<string, unknown>;
  counted?: Record<string, number>;
  /** What the approver also reads that follows from the input and the bound parts (a change's after). */
  shown?: Record<string, unknown>;
  members?: Record<string, MemberSet>;
};

/** One of a member set's first few, as the approver reads it: a name and the address it goes to. */
export type Sample = { name: string | null; address: string };

/**
 * The records a call reaches, counted as it parked: the approved run reaches only these, and of them only
 * those that still qualify. A record that joined since is left out and one that left is skipped; neither
 * refuses the run, as a changed bound part does, because the people approved are never exceeded.
 * `digest` is the SHA-256 of the sorted ids; `sample` holds contact details, so it stays in the
 * request's row: what travels (the request's workflow, `approval.get`) is `snapshotView`'s count and
 * digest.
 */
export type MemberSet = { ids: string[]; digest: string; sample: Sample[] };

/** How many of a set's first records the approver reads by name and address. */
export const SAMPLE_SIZE = 5;

const idsDigest = (ids: readonly string[]) =>
  createHash('sha256')
    .update([...ids].sort().join(','))
    .digest('hex');

export const memberSet = (ids: string[], sample: Sample[]): MemberSet => ({
  ids,
  digest: idsDigest(ids),
  sample: sample.slice(0, SAMPLE_SIZE),
});

/** An effect as stored beside a parked request, with the digest of its bound parts. */
export type Snapshot = Effect & { digest: string };

/** SHA-256 of the bound parts' canonical JSON, hex: the same whatever order `jsonb` keeps keys in. */
const effectDigest = (e: Effect): string => createHash('sha256').update(canonicalJson(e.bound)).digest('hex');

export const snapshotOf = (e: Effect): Snapshot => ({ ...e, digest: effectDigest(e) });

/** Whether a stored snapshot is what was taken: its bound parts and every member set match their digests. */
export const snapshotIntact = (s: Snapshot): boolean =>
  effectDigest(s) === s.digest && Object.values(s.members ?? {}).every((m) => idsDigest(m.ids) === m.digest);

/** What tells two snapshots of the same call apart: the bound parts' digest and each member set's. */
export const snapshotDigests = (s: Snapshot): Record<string, string> => ({
  effect: s.digest,
  ...Object.fromEntries(Object.entries(s.members ?? {}).map(([n, m]) => [`members.${n}`, m.digest])),
});

/** A snapshot as it may travel and be shown to the key that asked: each member set as its count and digest. */
export const snapshotView = ({ members, ...rest }: Snapshot) => ({
  ...rest,
  ...(members && {
    members: Object.fromEntries(
      Object.entries(members).map(([n, m]) => [n, { count: m.ids.length, digest: m.digest }]),
    ),
  }),
});

/**
 * How each member set of an approved snapshot differs from the same set now: who left (no longer
 * qualify), who joined (left out by the approved run) and how many of those approved still qualify
 * (whom it reaches). A set the effect no longer reads (the campaign is no longer a draft) is left out.
 */
export function memberChanges(
  approved: Effect,
  now: Effect,
): Record<string, { left: number; joined: number; still: number }> {
  const out: Record<string, { left: number; joined: number; still: number }> = {};
  for (const [name, set] of Object.entries(approved.members ?? {})) {
    const current = now.members?.[name];
    if (!current) continue;
    const was = new Set(set.ids);
    const is = new Set(current.ids);
    const still = set.ids.filter((id) => is.has(id)).length;
    out[name] = {
      left: set.ids.length - still,
      joined: current.ids.filter((id) => !was.has(id)).length,
      still,
    };
  }
  return out;
}

/** The bound parts that differ between what was approved and what stands now, by name, in order. */
export function changedParts(approved: Effect, now: Effect): string[] {
  const names = [...new Set([...Object.keys(approved.bound), ...Object.keys(now.bound)])].sort();
  return names.filter((n) => canonicalJson(approved.bound[n]) !== canonicalJson(now.bound[n]));
}

/**
 * The refusal of an approved run whose target changed after the request parked: nothing runs, and the
 * message names what changed, so the assistant knows to ask again.
 */
export const changedSinceApproval = (parts: string[]) =>
  gateRefusal(
    `changed since approval was requested: ${parts.join(', ')}. Nothing was done; ask for approval again.`,
    { changed: parts },
  );

/**
 * An approved run refused by the gate itself, before the operation ran: what was approved no longer
 * stands (the target changed, the requester lost the authority they asked with).
 */
export const gateRefusal = (message: string, details: Record<string, unknown> = {}) =>
  new DomainError('conflict', message, { ...details, refused_by: 'gate' });
