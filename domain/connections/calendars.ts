import type { Data } from '../kernel/data';
import type { Connection } from './entities';
import { connectionsIn } from './repository/connections';

/**
 * The workspace's CalDAV calendar: the connection named (a calendar an event was written to, even if
 * disconnected since: removing the event needs its access), or the live one it connected; null when none.
 */
export const calendarConnection = (data: Data, connectionId?: string): Promise<Connection | null> =>
  connectionId ? connectionsIn(data).find(connectionId) : connectionsIn(data).calendar();
