import type { Receipt, Receiver } from './receiver';
import type { CrashKind, Timeline } from './timeline';

export type Duplicate = {
  eventId: string;
  /** Its 2xx receipts, in order. */
  accepted: Receipt[];
  /** Why it came twice, or undefined: an unexplained duplicate fails the run. */
  explanation: string | undefined;
};

const CAUSE: Record<CrashKind, string> = {
  worker_kill: 'the worker was killed',
  worker_exit: 'the worker died',
  pg_kill: 'PostgreSQL was killed',
  pg_freeze: 'PostgreSQL was frozen',
  temporal_stop: 'Temporal was stopped',
};

/**
 * Events the main endpoint accepted (answered 2xx to a live sender) more than once. At-least-once
 * allows that only when a crash cut an attempt between its POST and its record: the same attempt
 * number arrives again, and a crash window overlaps the time between the two receipts.
 */
export function findDuplicates(receiver: Receiver, timeline: Timeline): Duplicate[] {
  const out: Duplicate[] = [];
  const t0 = timeline.phaseStarts[0]!.at;
  for (const [eventId, receipts] of receiver.main) {
    const accepted = receipts.filter((r) => r.accepted);
    if (accepted.length < 2) continue;
    const first = accepted[0]!;
    const last = accepted[accepted.length - 1]!;
    const sameAttempt = accepted.every((r) => r.attempt === first.attempt);
    const windows = timeline.overlapping(first.at, last.at);
    const explanation =
      sameAttempt && windows.length > 0
        ? `attempt ${first.attempt} sent again: ${windows
            .map((w) => `${CAUSE[w.kind]} at +${((w.start - t0) / 1000).toFixed(1)} s (${w.phase})`)
            .join(', ')} between its 2xx at +${((first.at - t0) / 1000).toFixed(1)} s and its record`
        : undefined;
    out.push({ eventId, accepted, explanation });
  }
  return out;
}
