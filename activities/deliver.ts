import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { CancelledFailure, Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import type { Ports } from '../domain/kernel/operation';
import {
  ATTEMPT_TIMEOUT_MS,
  attemptTarget,
  type AttemptTarget,
  checkTarget,
  CLAIM_MARGIN_MS,
  claimAttempt,
  classify,
  cancelDelivery,
  outcomeOf,
  type PostResult,
  readSecret,
  attemptHeaders,
  nextWaitMs,
  recordAttempt,
  releaseAttempt,
  retryAfterMs,
} from '../domain/webhooks';
import { endpointSlots } from './endpoint-slots';
import type { HttpPost } from './http-post';
import { NO_METRICS, type ActivityMetrics } from './activity-metrics';

export type DeliveryDeps = {
  db: DataSource;
  http: HttpPost;
  clock: () => Date;
  secretsKey: Buffer;
  allowPrivateTargets: boolean;
  cancelWorkflows: Ports['webhooks']['cancelWorkflows'];
  /** Attempts this process makes to one endpoint at once (WEBHOOK_ENDPOINT_CONCURRENCY). */
  endpointConcurrency?: number;
  metrics?: ActivityMetrics;
  /** Who holds an attempt while it is sent (a re-run elsewhere sees it): Temporal's worker identity. */
  workerIdentity?: string;
  /** Tests only: a shorter attempt deadline, and their own DNS server. */
  attemptTimeoutMs?: number;
  dnsServers?: string[];
};

export type AttemptInput = {
  deliveryId: string;
  generation: number;
  attempt: number;
  nextDelayMs: number | null;
  /**
   * The ladder's first attempt (a new event, or a resend): it goes ahead of retries for the
   * endpoint's attempt slots. Absent (a retry) in runs started before the field existed.
   */
  first?: boolean;
};
export type AttemptOutcome = {
  /**
   * `busy`: nothing was sent or recorded, and the workflow asks again after a wait: the endpoint already
   * has its cap of attempts in flight, or another run of this very attempt is being sent (its workflow
   * task was lost while it ran, and it will record the receiver's answer).
   */
  outcome: 'succeeded' | 'retry' | 'exhausted' | 'cancelled' | 'busy';
  status?: number;
  errorClass?: string;
  /** The wait before the next attempt, when the receiver's Retry-After made it longer than the ladder's. */
  waitMs?: number;
};

const TARGET_ERROR = { blocked: 'blocked_target', dns: 'dns', timeout: 'timeout' } as const;

/** The secrets that sign an attempt at `at`: the current one, then one still in its overlap. */
function signingSecrets(t: AttemptTarget, key: Buffer, at: Date): string[] | undefined {
  const current = readSecret(t.secret_ciphertext, key);
  if (current === undefined) return undefined;
  const overlapping =
    t.previous_secret_ciphertext && t.previous_secret_expires_at && t.previous_secret_expires_at > at
      ? readSecret(t.previous_secret_ciphertext, key)
      : undefined;
  return overlapping === undefined ? [current] : [current, overlapping];
}

/** The record's first wait after a database failure, doubling up to the longest. */
const RECORD_RETRY_FIRST_MS = 250;
const RECORD_RETRY_MAX_MS = 2_000;

/** What a re-run of an attempt answers from its record, instead of sending it again. */
const RECORDED = { SUCCEEDED: 'succeeded', EXHAUSTED: 'exhausted', FAILED: 'retry' } as const;

/** The running activity's cancellation signal; none when called outside Temporal (tests). */
function activityCancellation(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

export const createDeliveryActivities = (deps: DeliveryDeps) => {
  const inFlight = endpointSlots(deps.endpointConcurrency ?? 10);
  const metrics = deps.metrics ?? NO_METRICS;
  const identity = deps.workerIdentity ?? `${process.pid}@${hostname()}`;
  const attemptTimeoutMs = deps.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;

  /**
   * What an attempt answers without sending: from its record when it was made (a re-run: the worker
   * died, or its workflow task was lost, before Temporal heard), `cancelled` when the delivery no longer
   * waits for it, `busy` while another run of it is being sent. Undefined: it is this run's to make.
   */
  const settledBefore = async (
    t: AttemptTarget | undefined,
    input: AttemptInput,
  ): Promise<AttemptOutcome | undefined> => {
    if (t && t.generation === input.generation && t.already_made) {
      return { outcome: RECORDED[t.status as keyof typeof RECORDED] ?? 'cancelled' };
    }
    if (!t || t.generation !== input.generation || !['PENDING', 'FAILED'].includes(t.status)) {
      return { outcome: 'cancelled' };
    }
    if (!t.wanted) {
      await cancelDelivery(deps.db, input.deliveryId);
      metrics.delivery('cancelled');
      return { outcome: 'cancelled' };
    }
    if (t.sending) {
      metrics.attemptRerun('in_flight');
      return { outcome: 'busy' };
    }
    return undefined;
  };

  return {
    /**
     * One attempt: re-check that the delivery is still wanted and the target still allowed, claim the
     * attempt (so that a re-run of it sends nothing while this run may be sending), sign the stored
     * bytes afresh by the endpoint's scheme and live secrets (the receiver rejects timestamps older than
     * 300 s, and retries come hours later), POST, and record the attempt with the delivery's new state
     * and when the next comes (later than the ladder's step when the receiver's Retry-After asks).
     */
    async attemptDelivery(input: AttemptInput): Promise<AttemptOutcome> {
      const t = await attemptTarget(deps.db, input.deliveryId, input.attempt);
      const settled = await settledBefore(t, input);
      if (settled) return settled;
      // A slow receiver holds at most its endpoint's cap of this worker's attempt slots; the rest of
      // its deliveries wait in their workflows (a timer, not a slot) and other endpoints go on.
      const slot = await inFlight.take(t!.endpoint_id, input.first === true);
      if (slot === undefined) return { outcome: 'busy' };
      try {
        return await attempt(t!, input);
      } finally {
        inFlight.give(t!.endpoint_id, slot);
      }
    },
  };

  async function attempt(t: AttemptTarget, input: AttemptInput): Promise<AttemptOutcome> {
    const { db } = deps;
    const startedAt = deps.clock();
    // One deadline for DNS, connect, TLS and the whole answer, started before the claim, so the claim
    // outlasts the request by its margin. Temporal's cancellation (the workflow task was lost, the
    // workflow ended) stops the attempt only until its request has left whole: after that the request
    // runs to its answer or this deadline, and the answer is recorded (issue 57).
    const deadline = AbortSignal.timeout(attemptTimeoutMs);
    const cancelled = activityCancellation();
    const beforeSending = cancelled ? AbortSignal.any([deadline, cancelled]) : deadline;
    const token = randomUUID();
    // Measured before the claim is asked for, so this run's view of its claim's end is never late.
    const claimEndsBy = Date.now() + attemptTimeoutMs + CLAIM_MARGIN_MS;
    const claimed = await claimAttempt(db, {
      deliveryId: input.deliveryId,
      generation: input.generation,
      attempt: input.attempt,
      token,
      by: identity,
      forMs: attemptTimeoutMs + CLAIM_MARGIN_MS,
    });
    if (!claimed) {
      // Another run claimed or recorded it since the target was read: answer as a re-run would.
      return (
        (await settledBefore(await attemptTarget(db, input.deliveryId, input.attempt), input)) ?? {
          outcome: 'busy',
        }
      );
    }
    // Its holder's time ran out without a record: the worker sending it died. Made again as itself.
    if (claimed.took_over_from !== null) metrics.attemptRerun('expired');
    let mayHaveLeft = false;
    try {
      const target = await checkTarget(t.url, deps.allowPrivateTargets, {
        signal: beforeSending,
        dnsServers: deps.dnsServers,
      });
      const secrets = signingSecrets(t, deps.secretsKey, startedAt);
      const headers =
        secrets &&
        attemptHeaders({
          scheme: t.signing_scheme,
          secrets,
          eventId: t.event_id,
          eventType: t.event_type,
          attempt: input.attempt,
          envelope: t.envelope,
          at: Math.floor(startedAt.getTime() / 1000),
        });
      let result: PostResult;
      if (headers === undefined) result = { errorClass: 'secret_unreadable', unsent: true };
      else if (!target.ok) result = { errorClass: TARGET_ERROR[target.kind], unsent: true };
      else {
        mayHaveLeft = true;
        result = await deps.http({
          url: target.url,
          address: target.address!,
          body: t.envelope,
          signal: deadline,
          cancel: cancelled,
          headers,
        });
        mayHaveLeft = !('unsent' in result && result.unsent);
      }
      // Cut short by Temporal before the request left whole: the receiver cannot have it, so nothing is
      // recorded and the claim goes at once; the attempt's re-run makes it.
      if (!mayHaveLeft && cancelled?.aborted && !deadline.aborted) {
        await releaseAttempt(db, input.deliveryId, token);
        throw new CancelledFailure('the attempt was cancelled before its request was sent');
      }
      return await record(t, input, { token, endsBy: claimEndsBy }, startedAt, result);
    } catch (err) {
      // Nothing can have reached the receiver: let a re-run make the attempt without waiting. (After the
      // request may have left, the claim stays until its time is up.)
      if (!mayHaveLeft && !(err instanceof CancelledFailure))
        await releaseAttempt(db, input.deliveryId, token).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Records the attempt, trying again while its claim lasts when the database fails (a connection
   * refused, a statement timed out): only this run holds the receiver's answer, and a re-run that took
   * over after the claim ran out would send the attempt again. A try that committed though its answer
   * was lost shows as the attempt recorded.
   */
  async function recordWhileClaimed(
    r: Parameters<typeof recordAttempt>[1],
    claimEndsBy: number,
  ): Promise<Awaited<ReturnType<typeof recordAttempt>> | AttemptOutcome> {
    for (let wait = RECORD_RETRY_FIRST_MS; ; wait = Math.min(wait * 2, RECORD_RETRY_MAX_MS)) {
      try {
        return await recordAttempt(deps.db, r);
      } catch (err) {
        if (Date.now() + wait + RECORD_RETRY_MAX_MS >= claimEndsBy) throw err;
        await sleep(wait);
        const t = await attemptTarget(deps.db, r.deliveryId, r.attempt).catch(() => undefined);
        if (t?.already_made && t.generation === r.generation) {
          return { outcome: RECORDED[t.status as keyof typeof RECORDED] ?? 'cancelled' };
        }
      }
    }
  }

  async function record(
    t: AttemptTarget,
    input: AttemptInput,
    claim: { token: string; endsBy: number },
    startedAt: Date,
    result: PostResult,
  ): Promise<AttemptOutcome> {
    const endedAt = deps.clock().getTime();
    const durationMs = Math.max(0, endedAt - startedAt.getTime());
    const verdict = classify(result);
    const waitMs = nextWaitMs(input.nextDelayMs, retryAfterMs(result, endedAt));
    const outcome = outcomeOf(verdict, waitMs);
    const recorded = await recordWhileClaimed(
      {
        deliveryId: input.deliveryId,
        endpointId: t.endpoint_id,
        generation: input.generation,
        attempt: input.attempt,
        startedAt,
        durationMs,
        responseStatus: result.status ?? null,
        errorClass: result.errorClass ?? (verdict === 'succeeded' ? null : `http_${result.status}`),
        outcome,
        nextAttemptAt: outcome === 'retry' ? new Date(endedAt + waitMs!) : null,
        sendingToken: claim.token,
      },
      claim.endsBy,
    );
    // Recorded by a try whose answer was lost: answered from the record, as a re-run would.
    if ('outcome' in recorded) return recorded;
    if (recorded.cancelled.length > 0) await deps.cancelWorkflows(recorded.cancelled);
    // Counted once recorded: a re-run of this attempt answers from the record and counts nothing.
    metrics.attempt(recorded.recorded ? outcome : 'cancelled', durationMs / 1000);
    if (recorded.disabled) metrics.endpointDisabled();
    if (!recorded.recorded) return { outcome: 'cancelled' };
    if (outcome !== 'retry') metrics.delivery(outcome);
    const longer = outcome === 'retry' && waitMs !== input.nextDelayMs ? { waitMs: waitMs! } : {};
    return { outcome, status: result.status, errorClass: result.errorClass, ...longer };
  }
};
