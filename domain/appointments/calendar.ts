import type { Data } from '../kernel/data';
import { calendarConnection } from '../connections';
import { decryptSecret } from '../webhooks';
import { calDavClient, type CalDavClient } from './caldav';

/** The workspace's connected CalDAV calendar, ready to talk to, or undefined when none is connected. */
export async function calendarOf(
  data: Data,
  secretsKey: Buffer,
  /** The calendar an event was written to, even if disconnected since: removing it needs its access. */
  connectionId?: string,
): Promise<{ connectionId: string; client: CalDavClient } | undefined> {
  const c = await calendarConnection(data, connectionId);
  if (!c?.calendar_url || !c.username || !c.password_ciphertext) return undefined;
  return {
    connectionId: c.id,
    client: calDavClient({
      url: c.calendar_url,
      username: c.username,
      password: decryptSecret(c.password_ciphertext, secretsKey),
    }),
  };
}
