/**
 * The connections area: the outside systems a workspace connects (calendars among them).
 * This file is its public face: nothing outside domain/connections/ imports anything but this file.
 *
 * It offers its operations and its table; and, for now, its repository, which the appointments area
 * reads a workspace's connected calendar through.
 */

import { addConnection } from './operations/add';
import { disconnectConnection } from './operations/disconnect';
import { listConnections } from './operations/list';
import { ConnectionEntity } from './entities';

/** The operations this area registers. */
export const operations = { addConnection, listConnections, disconnectConnection } as const;

/** Its tables. */
export const entities = [ConnectionEntity];

/** The calendar a workspace connected (the appointments area books on it). */
export { calendarConnection } from './calendars';
