import { workspaceNamed } from '../identity';
import type { Data } from '../kernel/data';
import { invalid } from '../kernel/errors';
import { CONTACT_FIELDS, type Contact } from './views';
import { countryOfTimezone, normaliseEmail, normalisePhone } from './normalise';

/**
 * Whether reading the contact needs the workspace's time zone: only a phone written without its
 * leading `+` does (a national number is read in the workspace's country; an international one is not).
 */
export const needsTimezone = (input: Contact): boolean => {
  const phone = input.phone?.trim();
  return !!phone && !phone.startsWith('+');
};

/**
 * Validated contact fields → stored form: empty strings become null, email lower-cased, phone in
 * E.164 where it parses (with the workspace's country for national numbers). `timezone` may be left
 * out only when the contact does not need it (`needsTimezone`).
 */
export function normaliseContact(input: Contact, timezone: string | undefined): Contact {
  if (timezone === undefined && needsTimezone(input))
    throw new Error("a national phone number is read in the workspace's country: pass its time zone");
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
      const phone = normalisePhone(value, timezone === undefined ? undefined : countryOfTimezone(timezone));
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
