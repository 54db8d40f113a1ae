import { dateTime, nullable, object, oneOf, string, uuid } from '../kernel/shapes';
import type { Connection } from './entities';
import { displayName } from './systems';

/** A connection as every door shows it. */
export const connectionView = (c: Connection) => ({
  id: c.id,
  system: c.system,
  name: displayName(c.system),
  status: c.status,
  // The password is never shown; the URL and user name say which calendar it is.
  ...(c.calendar_url ? { calendar_url: c.calendar_url, username: c.username } : {}),
  connected_at: c.created_at.toISOString(),
  disconnected_at: c.disconnected_at ? c.disconnected_at.toISOString() : null,
});

/** The shape of a shown connection. */
export const CONNECTION = object(
  {
    id: uuid,
    system: string({ description: 'The system id, for example google_calendar.' }),
    name: string({ description: 'Its name, for example "Google Calendar".' }),
    status: oneOf(['CONNECTED', 'DISCONNECTED']),
    calendar_url: string({ description: 'A CalDAV calendar: its collection URL.' }),
    username: string({ description: 'A CalDAV calendar: the user name it is reached with.' }),
    connected_at: dateTime,
    disconnected_at: nullable(dateTime),
  },
  { title: 'Connection', optional: ['calendar_url', 'username'] },
);
