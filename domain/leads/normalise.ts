import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/** Trimmed, lower-cased email; the form matching and uniqueness use. */
export const normaliseEmail = (email: string) => email.trim().toLowerCase();

// The workspace's country, when its time zone names one unambiguously, decides national formats.
const COUNTRY_BY_ZONE: Record<string, CountryCode> = {
  'Europe/London': 'GB',
  'Europe/Dublin': 'IE',
  'Europe/Paris': 'FR',
  'Europe/Berlin': 'DE',
  'Europe/Madrid': 'ES',
  'Europe/Rome': 'IT',
  'Europe/Amsterdam': 'NL',
  'Europe/Brussels': 'BE',
  'Europe/Lisbon': 'PT',
  'Europe/Vienna': 'AT',
  'Europe/Zurich': 'CH',
  'Europe/Stockholm': 'SE',
  'Europe/Oslo': 'NO',
  'Europe/Copenhagen': 'DK',
  'Europe/Helsinki': 'FI',
  'Europe/Warsaw': 'PL',
  'America/New_York': 'US',
  'America/Chicago': 'US',
  'America/Denver': 'US',
  'America/Los_Angeles': 'US',
  'America/Toronto': 'CA',
  'America/Sao_Paulo': 'BR',
  'Australia/Sydney': 'AU',
  'Australia/Melbourne': 'AU',
  'Pacific/Auckland': 'NZ',
  'Asia/Tokyo': 'JP',
  'Asia/Singapore': 'SG',
  'Asia/Kolkata': 'IN',
  'Africa/Johannesburg': 'ZA',
};

export const countryOfTimezone = (timezone: string): CountryCode | undefined => COUNTRY_BY_ZONE[timezone];

/**
 * E.164 (`+447700900123`) when the number parses, using the workspace's country for national formats;
 * otherwise the digits, with a leading + kept. Undefined when it cannot be a phone number.
 */
export function normalisePhone(phone: string, country?: CountryCode): string | undefined {
  const text = phone.trim();
  if (!/^[+()\d\s.-]+$/.test(text)) return undefined;
  const parsed = parsePhoneNumberFromString(text, country ? { defaultCountry: country } : undefined);
  if (parsed?.isPossible()) return parsed.number;
  const international = text.startsWith('+') || text.startsWith('00');
  const digits = text.replace(/\D/g, '').replace(/^00/, '');
  if (digits.length < 3 || digits.length > 20) return undefined;
  return international ? `+${digits}` : digits;
}
