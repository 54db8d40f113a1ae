/**
 * The delivery rules, as data and pure functions. Imported by the delivery workflow, so nothing
 * here may do I/O or read a clock.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits between attempts: attempt 1 at once, then 30 s, 5 min, 30 min, 2 h, 8 h, 12 h; 7 attempts over about 22.6 hours. */
export const RETRY_LADDER_MS: readonly number[] = [
  30 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  8 * HOUR,
  12 * HOUR,
];
export const ATTEMPTS_PER_LADDER = RETRY_LADDER_MS.length + 1;

/** The whole answer (headers and body) must arrive within this. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * An attempt's claim lasts its deadline and this much more, for its record (a database under load; an
 * event loop late to fire the deadline). Until then a re-run of the attempt waits for the holder's record;
 * after, it takes the holder for dead (its worker killed) and makes the attempt again under its number.
 */
export const CLAIM_MARGIN_MS = 20_000;

/** After this many deliveries in a row end EXHAUSTED, the endpoint is disabled. */
export const FAILURES_BEFORE_DISABLE = 20;

/** A receiver answering this says the endpoint is gone for good: it is disabled at once. */
export const GONE_STATUS = 410;

/**
 * Why an attempt got no HTTP answer. `secret_unreadable` (the signing secret no longer decrypts with
 * SECRETS_KEY, or cannot sign the endpoint's scheme) can never succeed by trying again: it ends the
 * delivery at once. `interrupted`: recorded before issue 57 when Temporal cancelled an attempt after
 * its request had left; such a request now runs to its answer, so only older attempts carry it.
 */
export const ERROR_CLASSES = [
  'timeout',
  'connection',
  'tls',
  'blocked_target',
  'dns',
  'secret_unreadable',
  'interrupted',
] as const;
type ErrorClass = (typeof ERROR_CLASSES)[number];
const PERMANENT: ReadonlySet<ErrorClass> = new Set(['secret_unreadable']);
export type PostResult =
  | {
      status: number;
      errorClass?: undefined;
      /** The answer's `Retry-After` header, as sent. */
      retryAfter?: string;
    }
  | {
      status?: undefined;
      errorClass: ErrorClass;
      /** The request never left this process whole, so the receiver cannot have it. */
      unsent?: true;
    };

/**
 * The longest wait a receiver's `Retry-After` can ask for; a longer one waits this long. Each attempt
 * still counts toward the ladder, so a receiver that keeps asking moves the ladder's first rungs out by
 * at most this much each.
 */
export const RETRY_AFTER_MAX_MS = HOUR;

/** The statuses whose `Retry-After` is honoured: the receiver is rate-limiting us, or down for a while. */
const ASKS_TO_WAIT: ReadonlySet<number> = new Set([429, 503]);

// Delay-seconds (RFC 9110 10.2.3): digits only; however many, the cap bounds them.
const DELAY_SECONDS = /^\d+$/;

/**
 * How long a 429 or 503 asked us to wait, capped at RETRY_AFTER_MAX_MS: `Retry-After` in seconds or as
 * an HTTP date (measured from `nowMs`). Undefined for other statuses, no header, or one that cannot be
 * read; a date in the past asks for no wait.
 */
export function retryAfterMs(result: PostResult, nowMs: number): number | undefined {
  if (result.status === undefined || !ASKS_TO_WAIT.has(result.status)) return undefined;
  const value = result.retryAfter?.trim();
  if (!value) return undefined;
  let ms: number;
  if (DELAY_SECONDS.test(value)) ms = Number(value) * SECOND;
  else {
    const at = Date.parse(value);
    // Date.parse reads more than HTTP dates; an HTTP date always names its zone, GMT.
    if (Number.isNaN(at) || !/GMT$/.test(value)) return undefined;
    ms = Math.max(0, at - nowMs);
  }
  return Math.min(ms, RETRY_AFTER_MAX_MS);
}

/**
 * The wait before the next attempt: the ladder's next step, or longer when the receiver asked for
 * longer. Null when the ladder is spent (a `Retry-After` never adds an attempt).
 */
export function nextWaitMs(ladderMs: number | null, askedMs: number | undefined): number | null {
  if (ladderMs === null) return null;
  return Math.max(ladderMs, askedMs ?? 0);
}

export type AttemptVerdict = 'succeeded' | 'retry' | 'give_up';

/** 2xx succeeds; 4xx other than 408 and 429, or a permanent fault, ends the delivery; everything else is retried. */
export function classify(result: PostResult): AttemptVerdict {
  if (result.status === undefined) return PERMANENT.has(result.errorClass) ? 'give_up' : 'retry';
  const s = result.status;
  if (s >= 200 && s < 300) return 'succeeded';
  if (s >= 400 && s < 500 && s !== 408 && s !== 429) return 'give_up';
  return 'retry';
}

/** A delivery's state after an attempt: the answer's verdict, and whether the ladder has rungs left. */
export function outcomeOf(
  verdict: AttemptVerdict,
  nextDelayMs: number | null,
): 'succeeded' | 'retry' | 'exhausted' {
  if (verdict === 'succeeded') return 'succeeded';
  return verdict === 'give_up' || nextDelayMs === null ? 'exhausted' : 'retry';
}
