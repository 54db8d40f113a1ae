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
 * What a phone number may look like on input: digits with spaces, dots, dashes, brackets and a
 * leading +, holding 3 to 20 digits. The API document states the same pattern.
 */
export const PHONE_PATTERN = /^(?=(?:\D*\d){3,20}\D*$)[+()\d\s.-]+$/;

/**
 * E.164 (`+447700900123`) when the number parses, using the workspace's country for national formats;
 * otherwise the digits, with a leading + kept. Undefined when it cannot be a phone number.
 */
export function normalisePhone(phone: string, country?: CountryCode): string | undefined {
  const text = phone.trim();
  if (!PHONE_PATTERN.test(text)) return undefined;
  const parsed = parsePhoneNumberFromString(text, country ? { defaultCountry: country } : undefined);
  if (parsed?.isPossible()) return parsed.number;
  const digits = text.replace(/\D/g, '');
  if (text.startsWith('+')) return `+${digits}`;
  // 00 is the international prefix in most of the world: 0044... is +44...
  if (text.startsWith('00') && digits.length >= 5) return `+${digits.slice(2)}`;
  return digits;
}
