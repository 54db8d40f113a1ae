import { CancelledFailure, Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import type { Ports } from '../domain/kernel/operation';
import {
  ATTEMPT_TIMEOUT_MS,
  attemptTarget,
  type AttemptTarget,
  checkTarget,
  classify,
  cancelDelivery,
  outcomeOf,
  type PostResult,
  readSecret,
  attemptHeaders,
  nextWaitMs,
  recordAttempt,
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
  /** `busy`: the endpoint already has its cap of attempts in flight; nothing was sent or recorded. */
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
  return {
    /**
     * One attempt: re-check that the delivery is still wanted and the target still allowed, sign the
     * stored bytes afresh by the endpoint's scheme and live secrets (the receiver rejects timestamps
     * older than 300 s, and retries come hours later), POST, and record the attempt with the
     * delivery's new state and when the next comes (later than the ladder's step when the receiver's
     * Retry-After asks).
     */
    async attemptDelivery(input: AttemptInput): Promise<AttemptOutcome> {
      const t = await attemptTarget(deps.db, input.deliveryId, input.attempt);
      if (t && t.generation === input.generation && t.already_made) {
        // A re-run of an attempt already made and recorded (the worker died before Temporal heard the
        // result): answer what was recorded instead of sending it again.
        const recorded = { SUCCEEDED: 'succeeded', EXHAUSTED: 'exhausted', FAILED: 'retry' } as const;
        return { outcome: recorded[t.status as keyof typeof recorded] ?? 'cancelled' };
      }
      if (!t || t.generation !== input.generation || !['PENDING', 'FAILED'].includes(t.status)) {
        return { outcome: 'cancelled' };
      }
      if (!t.wanted) {
        await cancelDelivery(deps.db, input.deliveryId);
        metrics.delivery('cancelled');
        return { outcome: 'cancelled' };
      }
      // A slow receiver holds at most its endpoint's cap of this worker's attempt slots; the rest of
      // its deliveries wait in their workflows (a timer, not a slot) and other endpoints go on.
      const slot = await inFlight.take(t.endpoint_id, input.first === true);
      if (slot === undefined) return { outcome: 'busy' };
      try {
        return await attempt(t, input);
      } finally {
        inFlight.give(t.endpoint_id, slot);
      }
    },
  };

  async function attempt(t: AttemptTarget, input: AttemptInput): Promise<AttemptOutcome> {
    const { db } = deps;
    const startedAt = deps.clock();
    // One deadline for DNS, connect, TLS and the whole answer; Temporal's cancellation (the local
    // activity timed out, the workflow ended) stops the request too, so no retry overlaps a POST.
    const deadline = AbortSignal.timeout(deps.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS);
    const cancelled = activityCancellation();
    const signal = cancelled ? AbortSignal.any([deadline, cancelled]) : deadline;
    const target = await checkTarget(t.url, deps.allowPrivateTargets, {
      signal,
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
      result = await deps.http({
        url: target.url,
        address: target.address!,
        body: t.envelope,
        signal,
        headers,
      });
    }
    // Cut short by Temporal, not by our deadline: not the receiver's timeout. Before the request left
    // whole, nothing is recorded and the attempt's re-run makes it; after, it may have reached the
    // receiver, so it is recorded and the re-run answers from the record instead of sending it again.
    if (result.errorClass === 'timeout' && cancelled?.aborted && !deadline.aborted) {
      if (result.unsent) throw new CancelledFailure('the attempt was cancelled before its request was sent');
      result = { errorClass: 'interrupted' };
    }
    const endedAt = deps.clock().getTime();
    const durationMs = Math.max(0, endedAt - startedAt.getTime());
    const verdict = classify(result);
    const waitMs = nextWaitMs(input.nextDelayMs, retryAfterMs(result, endedAt));
    const outcome = outcomeOf(verdict, waitMs);
    const recorded = await recordAttempt(db, {
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
    });
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
