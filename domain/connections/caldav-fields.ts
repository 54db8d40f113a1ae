import * as yup from 'yup';
import { invalid } from '../kernel/errors';
import { describe } from '../kernel/json-schema';
import type { Services } from '../kernel/operation';
import { checkTarget, encryptSecret } from '../webhooks';
import type { CalendarAccess } from './repository/connections';
import type { SystemId } from './systems';

/** connection.add's fields for a CalDAV calendar (RFC 4791); refused for any other system. */
export const CALDAV_FIELDS = {
  calendar_url: describe(
    yup.string().trim().max(2000, 'calendar_url must be at most 2000 characters'),
    'CalDAV only: the calendar collection URL (https; http only where private targets are allowed).',
  ),
  username: describe(
    yup.string().trim().max(200, 'username must be at most 200 characters'),
    'CalDAV only: the user name for Basic authentication.',
  ),
  password: describe(
    yup.string().max(500, 'password must be at most 500 characters'),
    'CalDAV only: the password (or app password); stored encrypted, never shown again.',
  ),
};

type Fields = { calendar_url?: string; username?: string; password?: string };

/**
 * The calendar a `caldav` connection reaches, checked as webhook targets are (https and a public
 * address, unless private targets are allowed) and with its password encrypted under SECRETS_KEY.
 */
export async function calendarAccess(
  services: Services,
  system: SystemId,
  f: Fields,
): Promise<CalendarAccess | undefined> {
  if (system !== 'caldav') {
    const given = (['calendar_url', 'username', 'password'] as const).find((k) => f[k] !== undefined);
    if (given) throw invalid(given, `${given} is only for a caldav connection`);
    return undefined;
  }
  for (const k of ['calendar_url', 'username', 'password'] as const)
    if (!f[k]) throw invalid(k, `${k} is required for a caldav connection`);
  const keys = services.webhooks;
  const verdict = await checkTarget(f.calendar_url!, keys.allowPrivateTargets);
  if (!verdict.ok) throw invalid('calendar_url', `calendar_url: ${verdict.reason}`);
  const url = verdict.url.href.endsWith('/') ? verdict.url.href : `${verdict.url.href}/`;
  return { url, username: f.username!, passwordCiphertext: encryptSecret(f.password!, keys.secretsKey) };
}
