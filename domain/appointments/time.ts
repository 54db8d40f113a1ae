/**
 * Booking times as people write them: ISO 8601 with an offset (`2026-12-01T10:00:00+01:00`, `...Z`)
 * is an instant; without one (`2026-12-01T10:00`) it is a wall-clock time in a named IANA zone. Intl
 * knows every zone's offsets, so no time-zone library is needed.
 */
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;
const WALL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;

/** True for an IANA zone name Intl knows (`Europe/Amsterdam`, `UTC`). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** How far the zone's wall clock is ahead of UTC at `utcMs`. */
function offsetMs(utcMs: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(utcMs));
  const n = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second')) - utcMs;
}

/**
 * The instant `text` names, reading a time without an offset in `zone`; undefined when it is not a
 * date-time or names a day that does not exist (`2026-02-30`). A wall time skipped by a DST change
 * lands an hour later, as calendar applications do.
 */
export function instantOf(text: string, zone: string): Date | undefined {
  if (WITH_OFFSET.test(text)) {
    const d = new Date(text);
    return Number.isNaN(d.getTime()) ? undefined : d;
  }
  const m = WALL.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map((v) => Number(v ?? 0)) as [number, ...number[]];
  const wall = Date.UTC(y, mo! - 1, d, h, mi, s);
  const back = new Date(wall);
  if (back.getUTCMonth() !== mo! - 1 || back.getUTCDate() !== d! || h! > 23) return undefined;
  // Twice: the offset at the first guess can differ from the offset at the answer across a DST change.
  const first = wall - offsetMs(wall, zone);
  return new Date(wall - offsetMs(first, zone));
}
