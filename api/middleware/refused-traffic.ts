import { isIP } from 'node:net';
import { ipv6ToBigInt } from '../../domain/identity';

const WINDOW_MS = 60_000;
// Addresses tracked per window; past it, new ones share one bucket (and so are limited together).
const MAX_ADDRESSES = 100_000;

/** IPv4 per address; IPv6 per /64, which one subscriber usually holds whole. */
export function bucketOf(ip: string | undefined): string {
  if (!ip) return 'unknown';
  if (isIP(ip) !== 6) return ip;
  return `${(ipv6ToBigInt(ip) >> 64n).toString(16)}::/64`;
}

/**
 * Requests refused for their key (none, malformed, unknown, revoked, expired, or from outside the
 * allowlist), counted per client address in fixed one-minute windows. An address over the limit is
 * answered 429 before its key is even looked up, so guessing keys costs the guesser, not the
 * database. Kept in the process's memory, bounded, and cleared each window: this is a brake on
 * abuse, not a quota, so one count per API process is enough.
 */
export function refusedTraffic(perMinute: number, now: () => number = Date.now) {
  let windowStart = 0;
  const counts = new Map<string, number>();
  const roll = () => {
    const t = now();
    if (t - windowStart >= WINDOW_MS) {
      windowStart = t - (t % WINDOW_MS);
      counts.clear();
    }
  };
  const keyOf = (ip: string | undefined) => {
    const bucket = bucketOf(ip);
    return counts.has(bucket) || counts.size < MAX_ADDRESSES ? bucket : 'overflow';
  };
  const secondsLeft = () => Math.max(1, Math.ceil((windowStart + WINDOW_MS - now()) / 1000));
  return {
    perMinute,
    /** Seconds until the address may try again, or undefined when it is under the limit. */
    blockedFor(ip: string | undefined): number | undefined {
      roll();
      if ((counts.get(keyOf(ip)) ?? 0) < perMinute) return undefined;
      return secondsLeft();
    },
    /** Counts one refused request; answers what the address has left this window, and when it resets. */
    refused(ip: string | undefined): { remaining: number; reset: number } {
      roll();
      const k = keyOf(ip);
      const n = (counts.get(k) ?? 0) + 1;
      counts.set(k, n);
      return { remaining: Math.max(0, perMinute - n), reset: secondsLeft() };
    },
  };
}
export type RefusedTraffic = ReturnType<typeof refusedTraffic>;
