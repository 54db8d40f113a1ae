import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { preparedQuery } from './data';
import * as yup from 'yup';
import { DomainError } from './errors';
import { bind } from './statements';

const IDEMPOTENCY_WINDOW_HOURS = 24;

/**
 * JSON with object keys sorted, so the same body sent with keys in another order is the same request
 * (and a snapshot read back from `jsonb`, which reorders keys, has the same digest).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The one rule for an idempotency key, whichever door it comes through (the REST header, the
 * assistant's argument): 1 to 255 visible ASCII characters.
 */
export const IDEMPOTENCY_KEY = { maxLength: 255, pattern: /^[\x21-\x7e]+$/ } as const;

/** Whether `key` keeps the rule. */
export const isIdempotencyKey = (key: string) =>
  key.length > 0 && key.length <= IDEMPOTENCY_KEY.maxLength && IDEMPOTENCY_KEY.pattern.test(key);

/** The rule as an input field named `name`, refusing with the rule's own words. */
export const idempotencyKeyField = (name: string) => {
  const rule = `${name} must be 1 to 255 visible ASCII characters`;
  return yup
    .string()
    .required(`${name} is required`)
    .max(IDEMPOTENCY_KEY.maxLength, rule)
    .matches(IDEMPOTENCY_KEY.pattern, rule);
};

/** The request's fingerprint: the same input sent with keys in another order is the same request. */
export const requestHash = (input: unknown): Buffer =>
  createHash('sha256').update(canonicalJson(input)).digest();

/**
 * Looks up the first answer for (caller, Idempotency-Key) inside the caller's transaction, holding a
 * transaction-scoped lock on the pair so the work and the record of its answer commit together. A
 * second request while the first runs is a conflict; the same key with another body is refused.
 */
export async function recallAnswer(
  m: EntityManager,
  callerId: string,
  idempotencyKey: string,
  hash: Buffer,
  /** The input field the key came in, which a refusal names (each door names it in its own terms). */
  field: string,
): Promise<{ body: unknown } | undefined> {
  const [{ locked }] = await preparedQuery<[{ locked: boolean }]>(
    m,
    'idempotency_lock',
    'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 23)) AS locked',
    [`${callerId}:${idempotencyKey}`],
  );
  if (!locked) {
    throw new DomainError(
      'conflict',
      'A request with this idempotency key is still being processed; retry later.',
      { field },
    );
  }
  const [stored] = await preparedQuery<{ request_hash: Buffer; response_body: unknown }[]>(
    m,
    'idempotency_recall',
    `SELECT request_hash, response_body FROM idempotency_keys
      WHERE key_id = $1 AND idempotency_key = $2 AND created_at > clock_timestamp() - make_interval(hours => $3)`,
    [callerId, idempotencyKey, IDEMPOTENCY_WINDOW_HOURS],
  );
  if (!stored) return undefined;
  if (!stored.request_hash.equals(hash)) {
    throw new DomainError(
      'invalid_request',
      'This idempotency key was already used with a different request.',
      { field },
    );
  }
  return { body: stored.response_body };
}

/**
 * Keeps an answer for 24 hours, in the transaction that produced it: the INSERT, its values bound into
 * `params` (the runner sends it with the change's other last writes).
 */
export function rememberAnswerInsert(
  callerId: string,
  idempotencyKey: string,
  hash: Buffer,
  body: unknown,
  params: unknown[],
): string {
  const [caller, key, fingerprint, answer] = [callerId, idempotencyKey, hash, JSON.stringify(body)].map((v) =>
    bind(params, v),
  );
  return `INSERT INTO idempotency_keys (key_id, idempotency_key, request_hash, response_status, response_body)
     VALUES (${caller}, ${key}, ${fingerprint}, 200, ${answer})
     ON CONFLICT (key_id, idempotency_key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
       response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body, created_at = clock_timestamp()`;
}
