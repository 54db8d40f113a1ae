import type { Check, CheckContext } from '../lib/invariants';
import type { Replies } from '../lib/replies';
import type { Settings } from '../lib/settings';

export type FaultContext = CheckContext & {
  settings: Settings;
  replies: Replies;
  /**
   * A check to make at the end of the run, for what takes longer than the fault's own phase (a retry
   * ladder's rung, an activity's timeout): the run goes on meanwhile rather than waiting for it.
   */
  atEnd: (check: () => Promise<Check>) => void;
};

/** What one fault did, what it checked beyond the invariants, and its own figures. */
export type FaultOutcome = {
  injected: string;
  checks: Check[];
  figures: Record<string, unknown>;
};

export type Fault = { name: string; run: (ctx: FaultContext) => Promise<FaultOutcome> };

/** A check from a condition, with what was seen either way. */
export const expect = (name: string, ok: boolean, detail: string): Check => ({ name, ok, detail });

/** Counts of answers by status (or error name), e.g. `201x12 503x3 ECONNREFUSEDx2`. */
export function histogram(values: (string | number)[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
  return [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k}x${n}`)
    .join(' ');
}

/** The slowest and quickest answer per status (or error name), e.g. `500: 4998-9012 ms`. */
export function spreadByStatus(
  tries: { status?: number; error?: string; ms: number }[],
): Record<string, string> {
  const by = new Map<string, number[]>();
  for (const t of tries) {
    const k = String(t.status ?? t.error);
    by.set(k, [...(by.get(k) ?? []), t.ms]);
  }
  return Object.fromEntries(
    [...by.entries()].map(([k, ms]) => [k, `${Math.min(...ms)}-${Math.max(...ms)} ms`]),
  );
}
