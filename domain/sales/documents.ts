import { createHash } from 'node:crypto';
import { instantOf } from '../appointments';
import type { Interval, Line, Quote } from './entities';

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** What a page's token looks like (derived or, sent before links were derived, random), so anything else is refused before a lookup. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Lines as entered: a description, a quantity and a unit amount in minor units. */
export type LineInput = { description: string; quantity: number; unit_amount: number };

/** The lines with their amounts, and the total (rounded to the minor unit per line). */
export function priced(lines: LineInput[]): { lines: Line[]; total: number } {
  const out = lines.map((l) => ({ ...l, amount: Math.round(l.quantity * l.unit_amount) }));
  return { lines: out, total: out.reduce((sum, l) => sum + l.amount, 0) };
}

/** Monthly recurring revenue of a recurring total, in minor units. */
export const mrrOf = (total: number, interval: Interval | null) =>
  interval === null ? null : interval === 'month' ? total : Math.round(total / 12);

/**
 * The revision exactly as its page shows it, as canonical JSON: what a signature's SHA-256 covers.
 * Any change to what the customer reads (a line, the total, the date, the seller or the terms) changes
 * the hash.
 */
export const documentOf = (
  q: Pick<
    Quote,
    'number' | 'revision' | 'currency' | 'lines' | 'total' | 'recurring_interval' | 'valid_until' | 'seller'
  >,
) =>
  JSON.stringify({
    number: q.number,
    revision: q.revision,
    currency: q.currency,
    lines: q.lines.map((l) => [l.description, l.quantity, l.unit_amount, l.amount]),
    total: Number(q.total),
    recurring_interval: q.recurring_interval,
    valid_until: q.valid_until,
    // The seller and the terms, since quotes kept them (an older quote's hash covers neither).
    ...(q.seller && {
      seller: [
        q.seller.name,
        q.seller.address,
        q.seller.email,
        q.seller.phone,
        q.seller.terms_url,
        q.seller.terms_text,
      ],
    }),
  });

/** The calendar day `at` falls on in `zone`, YYYY-MM-DD. */
export const dayIn = (at: Date, zone: string) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);

/** The instant a day ends in `zone` (the next day's midnight there): when a valid-until or due date passes. */
export function endOfDay(day: string, zone: string): Date {
  const next = new Date(`${day}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return instantOf(next.toISOString().slice(0, 10) + 'T00:00', zone)!;
}

/** `day` plus `n` days, YYYY-MM-DD. */
export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** Money for people: 1234.5 EUR as "€1,234.50" (the currency's own minor unit). */
export function money(minor: number | string, currency: string): string {
  const digits =
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  return new Intl.NumberFormat('en', { style: 'currency', currency }).format(Number(minor) / 10 ** digits);
}
