import type { Data } from '../../kernel/data';
import type { EventRow } from '../../kernel/entities';
import { TEST_EVENT_TYPE } from '../../kernel/event-catalogue';
import { subscribed } from '../fan-out';
import type { Delivery, DeliveryStatus, Endpoint } from '../entities';

/** What one attempt needs to know, read in one round trip at its start. */
export type AttemptTarget = Pick<
  Delivery,
  'status' | 'endpoint_id' | 'generation' | 'event_id' | 'event_type'
> &
  Pick<
    Endpoint,
    | 'url'
    | 'secret_ciphertext'
    | 'signing_scheme'
    | 'previous_secret_ciphertext'
    | 'previous_secret_expires_at'
  > & {
    envelope: NonNullable<EventRow['envelope']>;
    /**
     * The endpoint still wants it: switched on and subscribed to its type (`subscribed`, the fan-out's
     * own rule), or it is the endpoint's test.
     */
    wanted: boolean;
    /** This attempt is already recorded: a re-run after the worker died before Temporal heard. */
    already_made: boolean;
    /** An attempt of this delivery is being sent (its holder's time is not up): nothing may go now. */
    sending: boolean;
  };

/** One run's hold on an attempt while it is sent (`claim`): its token, the worker and its time. */
export type AttemptClaim = {
  deliveryId: string;
  generation: number;
  attempt: number;
  token: string;
  by: string;
  /** How long the holder may take to send and record it; past that it is taken for dead. */
  forMs: number;
};

/** A claim taken: from nobody, or over a holder whose time was up (its worker died mid-attempt). */
export type Claimed = { took_over_from: string | null; took_over_attempt: number | null };

export type AttemptRecord = {
  deliveryId: string;
  endpointId: string;
  generation: number;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  responseStatus: number | null;
  errorClass: string | null;
  /** The delivery's state after this attempt. */
  outcome: 'succeeded' | 'retry' | 'exhausted';
  nextAttemptAt: Date | null;
  /** The claim the attempt was sent under (`claim`); null for none. Only its holder records it. */
  sendingToken: string | null;
};

/** The endpoint as a failure in a row leaves it. */
export type FailureCount = Pick<
  Endpoint,
  'workspace_id' | 'consecutive_failures' | 'status' | 'owner_user_id' | 'url'
>;

/**
 * The attempt's target, one statement (built once: it runs at the start of every attempt). The endpoint
 * still wants the delivery by the fan-out's own rule (`subscribed`), or it is the endpoint's test ($3).
 */
const TARGET = `SELECT d.status, d.endpoint_id, d.generation, d.event_id, d.event_type, ev.envelope, e.url,
                ${subscribed('e', 'd.event_type')} OR (e.status = 'ACTIVE' AND d.event_type = $3) AS wanted,
                e.secret_ciphertext, e.signing_scheme, e.previous_secret_ciphertext,
                e.previous_secret_expires_at, a.number IS NOT NULL AS already_made,
                coalesce(d.sending_until > clock_timestamp(), false) AS sending
           FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN events ev ON ev.id = d.event_id
           LEFT JOIN webhook_attempts a ON a.delivery_id = d.id AND a.number = $2
          WHERE d.id = $1`;

/**
 * The statements of a delivery attempt, which every delivery makes at least once (the hot path). SQL:
 * each is one round trip with its guard and its arithmetic in the statement (the generation and status
 * that say the attempt is still wanted, the delivered time, the failure count), where a read and a
 * write would be two. The activity acts on a delivery by id, in whatever workspace it is. Updates that
 * answer rows are wrapped in a WITH, so the driver answers the rows (a bare UPDATE answers [rows, count]).
 */
export const attemptsIn = (data: Data) => ({
  /** The delivery, its endpoint, its event's bytes, and whether this attempt was already made. */
  target: async (deliveryId: string, attempt: number): Promise<AttemptTarget | undefined> =>
    (await data.sql<AttemptTarget[]>(TARGET, [deliveryId, attempt, TEST_EVENT_TYPE]))[0],

  /**
   * Claims the attempt for one run before its request leaves: only while this generation still waits,
   * the attempt is not recorded, and no other run holds the delivery (or its holder's time is up). One
   * statement, committed on its own; it answers nothing when another run holds it or the attempt is
   * done. SQL: the row is locked first so the holder it replaces (if any) can be answered.
   */
  claim: async (c: AttemptClaim): Promise<Claimed | undefined> =>
    (
      await data.sql<Claimed[]>(
        `WITH prior AS (
           SELECT id, sending_by, sending_attempt FROM webhook_deliveries WHERE id = $1 FOR UPDATE),
         claimed AS (
           UPDATE webhook_deliveries d SET sending_token = $4, sending_attempt = $3, sending_by = $5,
                  sending_until = clock_timestamp() + make_interval(secs => $6 / 1000.0)
             FROM prior p
            WHERE d.id = p.id AND d.generation = $2 AND d.status IN ('PENDING', 'FAILED')
              AND (d.sending_until IS NULL OR d.sending_until <= clock_timestamp())
              AND NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.number = $3)
           RETURNING p.sending_by AS took_over_from, p.sending_attempt AS took_over_attempt)
         SELECT * FROM claimed`,
        [c.deliveryId, c.generation, c.attempt, c.token, c.by, c.forMs],
      )
    )[0],

  /** Lets a claim go (nothing was sent under it, or its record found the delivery gone). */
  release: async (deliveryId: string, token: string): Promise<void> => {
    await data.sql(
      `UPDATE webhook_deliveries SET sending_token = NULL, sending_attempt = NULL, sending_by = NULL, sending_until = NULL
        WHERE id = $1 AND sending_token = $2`,
      [deliveryId, token],
    );
  },

  /**
   * The delivery's new state, if this generation still waits and the record's run still holds the
   * attempt (its claim was not taken over); the claim ends with it. Answers whether it did.
   */
  settle: async (r: AttemptRecord, status: DeliveryStatus): Promise<boolean> => {
    const settled = await data.sql<{ id: string }[]>(
      `WITH settled AS (
         UPDATE webhook_deliveries SET status = $3, attempts = $4, response_status = $5, next_attempt_at = $6,
                workflow_started_at = coalesce(workflow_started_at, $7),
                delivered_at = CASE WHEN $3 = 'SUCCEEDED' THEN $7::timestamptz + make_interval(secs => $8 / 1000.0) END,
                sending_token = NULL, sending_attempt = NULL, sending_by = NULL, sending_until = NULL
          WHERE id = $1 AND generation = $2 AND status IN ('PENDING', 'FAILED')
            AND sending_token IS NOT DISTINCT FROM $9
          RETURNING id)
       SELECT id FROM settled`,
      [
        r.deliveryId,
        r.generation,
        status,
        r.attempt,
        r.responseStatus,
        r.nextAttemptAt,
        r.startedAt,
        r.durationMs,
        r.sendingToken,
      ],
    );
    return settled.length > 0;
  },

  /** The attempt's row; a re-run of a recorded attempt leaves the first record as it was. */
  log: async (r: AttemptRecord): Promise<void> => {
    await data.sql(
      `INSERT INTO webhook_attempts (delivery_id, number, started_at, duration_ms, response_status, error_class)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (delivery_id, number) DO NOTHING`,
      [r.deliveryId, r.attempt, r.startedAt, r.durationMs, r.responseStatus, r.errorClass],
    );
  },

  /** A delivery succeeded: the count of failures in a row restarts (no write when it is already 0). */
  resetFailures: async (endpointId: string): Promise<void> => {
    await data.sql(
      `UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id = $1 AND consecutive_failures <> 0`,
      [endpointId],
    );
  },

  /** A delivery gave up: one more failure in a row, counted atomically under concurrent attempts. */
  countFailure: async (endpointId: string): Promise<FailureCount | undefined> =>
    (
      await data.sql<FailureCount[]>(
        `WITH counted AS (
           UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1 WHERE id = $1
           RETURNING workspace_id, consecutive_failures, status, owner_user_id, url)
         SELECT * FROM counted`,
        [endpointId],
      )
    )[0],
});
