import { workspaceNamed } from '../identity/repository';
import type { Data } from '../kernel/data';
import { invalid } from '../kernel/errors';
import { CONTACT_FIELDS, type Contact } from './views';
import { countryOfTimezone, normaliseEmail, normalisePhone } from './normalise';

/**
 * Validated contact fields → stored form: empty strings become null, email lower-cased, phone in
 * E.164 where it parses (with the workspace's country for national numbers).
 */
export function normaliseContact(input: Contact, timezone: string): Contact {
  const out: Contact = {};
  for (const field of CONTACT_FIELDS) {
    if (!(field in input)) continue;
    const value = input[field];
    if (value === null || value === undefined || value === '') {
      out[field] = null;
      continue;
    }
    if (field === 'email') out.email = normaliseEmail(value);
    else if (field === 'phone') {
      const phone = normalisePhone(value, countryOfTimezone(timezone));
      if (!phone)
        throw invalid('phone', 'phone must be a phone number (digits, optionally with a leading +)');
      out.phone = phone;
    } else out[field] = value;
  }
  return out;
}

/** The workspace's time zone, which says how national phone numbers are read. */
export const workspaceTimezone = async (data: Data, workspaceId: string): Promise<string> =>
  (await workspaceNamed(data, workspaceId))?.timezone ?? 'UTC';
