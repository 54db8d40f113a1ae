import type { SendWindow } from './entities';

const HOUR = 3_600_000;

/** The weekday (1 Monday ... 7 Sunday) and hour of an instant in a time zone. */
function local(at: Date, timeZone: string): { weekday: number; hour: number; minute: number } {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  const weekday = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(get('weekday')) + 1;
  return { weekday, hour: Number(get('hour')), minute: Number(get('minute')) };
}

export const insideWindow = (w: SendWindow, at: Date, timeZone: string): boolean => {
  const t = local(at, timeZone);
  return w.weekdays.includes(t.weekday) && t.hour >= w.start_hour && t.hour < w.end_hour;
};

/**
 * How long until the window next opens (0 when it is open), found hour by hour over the coming week,
 * so that a daylight-saving change moves it as the clock on the wall does.
 */
export function untilWindowOpens(w: SendWindow, at: Date, timeZone: string): number {
  if (insideWindow(w, at, timeZone)) return 0;
  const { minute } = local(at, timeZone);
  const toNextHour = HOUR - minute * 60_000 - (at.getTime() % 60_000);
  for (let h = 0; h < 8 * 24; h++) {
    const wait = toNextHour + h * HOUR;
    if (insideWindow(w, new Date(at.getTime() + wait), timeZone)) return wait;
  }
  throw new Error('the sending window never opens');
}

/** The start of the local day an instant falls in, as an instant (for the daily cap). */
export function startOfLocalDay(at: Date, timeZone: string): Date {
  const { hour, minute } = local(at, timeZone);
  return new Date(at.getTime() - hour * HOUR - minute * 60_000 - (at.getTime() % 60_000));
}
