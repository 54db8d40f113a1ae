import { createHash } from 'node:crypto';
import { DomainError } from './errors';
import { canonicalJson } from './idempotency';

/**
 * What a gated call will do, read from its target as it stands, in the words an approver checks:
 * `bound` holds the named parts that must be the same when the approved call runs (a campaign's
 * `steps`, `audience`; an agent's `review_level`, `limits`), `counted` what was counted as it parked and
 * is shown but not bound (the audience's size then: new leads matching the same definition are not a
 * change).
 */
export type Effect = {
  bound: Record<string, unknown>;
  counted?: Record<string, number>;
  /** What the approver also reads that follows from the input and the bound parts (a change's after). */
  shown?: Record<string, unknown>;
};

/** An effect as stored beside a parked request, with the digest of its bound parts. */
export type Snapshot = Effect & { digest: string };

/** SHA-256 of the bound parts' canonical JSON, hex: the same whatever order `jsonb` keeps keys in. */
export const effectDigest = (e: Effect): string =>
  createHash('sha256').update(canonicalJson(e.bound)).digest('hex');

export const snapshotOf = (e: Effect): Snapshot => ({ ...e, digest: effectDigest(e) });

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
