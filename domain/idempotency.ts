import { createHash } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { DomainError } from './errors';

export const IDEMPOTENCY_WINDOW_HOURS = 24;

export type StoredResponse = { status: number; body: unknown };
export type IdempotentResult = StoredResponse & { replayed: boolean };

/** JSON with object keys sorted, so the same body sent with keys in another order is the same request. */
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

export function validateIdempotencyKey(key: string | undefined): string {
  if (!key) {
    throw new DomainError('invalid_request', 'The Idempotency-Key header is required.', {
      field: 'Idempotency-Key',
    });
  }
  if (key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new DomainError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', {
      field: 'Idempotency-Key',
    });
  }
  return key;
}

/**
 * Runs `work` at most once per (key, Idempotency-Key) within 24 hours, in one transaction with the
 * record of its response: a crash leaves neither. A second request while the first runs is a
 * conflict; a later one with the same body gets the first response back; another body is refused.
 * Only 2xx responses are kept, so a request that failed can be retried with the same key.
 */
export async function withIdempotency(
  db: DataSource,
  keyId: string,
  idempotencyKey: string,
  body: unknown,
  work: (m: EntityManager) => Promise<StoredResponse>,
): Promise<IdempotentResult> {
  const hash = createHash('sha256').update(canonicalJson(body)).digest();
  return db.transaction(async (m) => {
    const [{ locked }] = await m.query<[{ locked: boolean }]>(
      'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 23)) AS locked',
      [`${keyId}:${idempotencyKey}`],
    );
    if (!locked) {
      throw new DomainError(
        'conflict',
        'A request with this Idempotency-Key is still being processed; retry later.',
      );
    }
    const [stored] = await m.query<
      { request_hash: Buffer; response_status: number; response_body: unknown }[]
    >(
      `SELECT request_hash, response_status, response_body FROM idempotency_keys
        WHERE key_id = $1 AND idempotency_key = $2 AND created_at > clock_timestamp() - make_interval(hours => $3)`,
      [keyId, idempotencyKey, IDEMPOTENCY_WINDOW_HOURS],
    );
    if (stored) {
      if (!stored.request_hash.equals(hash)) {
        throw new DomainError(
          'invalid_request',
          'This Idempotency-Key was already used with a different request body.',
          { field: 'Idempotency-Key' },
        );
      }
      return { status: stored.response_status, body: stored.response_body, replayed: true };
    }
    const response = await work(m);
    if (response.status >= 200 && response.status < 300) {
      await m.query(
        `INSERT INTO idempotency_keys (key_id, idempotency_key, request_hash, response_status, response_body)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (key_id, idempotency_key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
           response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body, created_at = clock_timestamp()`,
        [keyId, idempotencyKey, hash, response.status, JSON.stringify(response.body)],
      );
    }
    return { ...response, replayed: false };
  });
}
