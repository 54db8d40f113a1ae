import { icsEvent, icsTime, type CalendarEvent } from './ical';

/** A CalDAV calendar collection and the Basic credentials that reach it. */
export type CalDavAccess = { url: string; username: string; password: string };

/** The calendar answered something we cannot act on; the activity retries, then holds the booking. */
class CalDavError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'CalDavError';
  }
}

const TIMEOUT_MS = 10_000;

/** The `<response>` elements of a WebDAV multistatus, each with its href and calendar data (if asked). */
function responses(xml: string): { href: string; data: string }[] {
  const blocks = xml.match(/<(?:[\w-]+:)?response[\s>][\s\S]*?<\/(?:[\w-]+:)?response>/g) ?? [];
  return blocks.map((b) => ({
    href: /<(?:[\w-]+:)?href>([\s\S]*?)<\//.exec(b)?.[1]?.trim() ?? '',
    data: /<(?:[\w-]+:)?calendar-data[^>]*>([\s\S]*?)<\//.exec(b)?.[1] ?? '',
  }));
}

/**
 * A CalDAV client (RFC 4791) on plain fetch: free/busy by a calendar-query REPORT with a time-range
 * filter (servers implement it more consistently than free-busy-query, Radicale included), an event
 * written with PUT and `If-None-Match: *`, removed with DELETE. Redirects are not followed.
 */
export function calDavClient(access: CalDavAccess) {
  const authorization = `Basic ${Buffer.from(`${access.username}:${access.password}`).toString('base64')}`;
  const send = async (method: string, url: string, headers: Record<string, string>, body?: string) => {
    try {
      return await fetch(url, {
        method,
        headers: { authorization, ...headers },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new CalDavError(`${method} ${url}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const refused = async (res: Response, what: string) =>
    new CalDavError(`${what}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`, res.status);
  const eventUrl = (uid: string) => new URL(`${encodeURIComponent(uid)}.ics`, access.url).href;

  return {
    /**
     * Whether anything but the booking's own event (`ownUid`) keeps the slot busy: events marked
     * TRANSP:TRANSPARENT ("free") or STATUS:CANCELLED do not.
     */
    busy: async (start: Date, end: Date, ownUid: string): Promise<boolean> => {
      const body = `<?xml version="1.0" encoding="utf-8"?>
<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
  <D:prop><D:getetag/><C:calendar-data/></D:prop>
  <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">
    <C:time-range start="${icsTime(start)}" end="${icsTime(end)}"/>
  </C:comp-filter></C:comp-filter></C:filter>
</C:calendar-query>`;
      const res = await send(
        'REPORT',
        access.url,
        { depth: '1', 'content-type': 'application/xml; charset=utf-8' },
        body,
      );
      if (res.status !== 207) throw await refused(res, 'free/busy query');
      return responses(await res.text()).some(
        ({ data }) =>
          !data.includes(`UID:${ownUid}`) &&
          !/^TRANSP:TRANSPARENT/m.test(data) &&
          !/^STATUS:CANCELLED/m.test(data),
      );
    },
    /**
     * Writes the event and answers its URL. `If-None-Match: *` never overwrites: a 412 means this
     * booking's event is already there (an earlier attempt wrote it before its answer was lost).
     */
    put: async (event: CalendarEvent, now: Date): Promise<string> => {
      const url = eventUrl(event.uid);
      const res = await send(
        'PUT',
        url,
        { 'content-type': 'text/calendar; charset=utf-8', 'if-none-match': '*' },
        icsEvent(event, now),
      );
      if (res.status === 201 || res.status === 204 || res.status === 412) return url;
      throw await refused(res, 'writing the event');
    },
    /** Removes the event; one already gone is removed. */
    remove: async (url: string): Promise<void> => {
      const res = await send('DELETE', url, {});
      if (res.ok || res.status === 404 || res.status === 410) return;
      throw await refused(res, 'removing the event');
    },
  };
}

export type CalDavClient = ReturnType<typeof calDavClient>;
