import type { Data } from '../../kernel/data';
import { ConnectionEntity, type Connection } from '../entities';
import type { SystemId } from '../systems';

/** What a CalDAV connection carries; the password only ever encrypted. */
export type CalendarAccess = { url: string; username: string; passwordCiphertext: Buffer };

/** A workspace's connected systems. */
export const connectionsIn = (data: Data) => {
  const rows = data.scoped(ConnectionEntity);
  return {
    /**
     * Records a system as connected, or answers undefined when it already is. SQL: the guard is the
     * partial unique index on lower(system) among live connections, which only ON CONFLICT can name.
     */
    connect: async (system: SystemId, calendar?: CalendarAccess): Promise<Connection | undefined> => {
      const [row] = await data.sql<Connection[]>(
        `INSERT INTO connections (workspace_id, system, calendar_url, username, password_ciphertext)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (workspace_id, lower(system)) WHERE status = 'CONNECTED' DO NOTHING RETURNING *`,
        [
          data.workspaceId,
          system,
          calendar?.url ?? null,
          calendar?.username ?? null,
          calendar?.passwordCiphertext ?? null,
        ],
      );
      return row;
    },
    /** The live CalDAV calendar, if the workspace connected one. */
    calendar: () => rows.findOne({ system: 'caldav', status: 'CONNECTED' }),
    /** Connected first, then the newest. */
    list: () => rows.find({}, { order: { status: 'ASC', created_at: 'DESC', id: 'ASC' } }),
    find: (id: string) => rows.findOne({ id }),
    lock: (id: string) => rows.findOne({ id }, { lock: true }),
    disconnect: async (id: string): Promise<Connection> =>
      (await rows.update({ id }, { status: 'DISCONNECTED', disconnected_at: () => 'clock_timestamp()' }))[0]!,
  };
};
