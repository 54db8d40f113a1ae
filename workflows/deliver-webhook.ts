import { patched, proxyLocalActivities, setWorkflowOptions, sleep, upsertMemo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { ATTEMPTS_PER_LADDER, RETRY_LADDER_MS } from '../domain/webhooks/delivery-rules';

export type DeliveryInput = {
  deliveryId: string;
  /** 0 for the first ladder; a resend runs a new ladder as generation 1, 2, ... */
  generation: number;
  /** Attempt number of this ladder's first attempt (a resend continues the count). */
  firstAttempt: number;
  /** A restarted ladder (the reconciler replaced a lost run) begins at this rung, not the first. */
  rung?: number;
};
export type DeliveryOutcome = 'succeeded' | 'exhausted' | 'cancelled';

// Local activity: a delivery that succeeds at once finishes in the workflow task that started it
// (with eager start), which is what makes a workflow per delivery affordable (see perf-notes).
// It returns HTTP failures as outcomes; it throws (and is retried) only for our own faults.
const { attemptDelivery } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '45 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/** The patch that added the ladder's progress to the memo (2026-11-29). */
const PROGRESS_MEMO = 'delivery-progress-memo';

/**
 * 1 s, 2 s, 4 s ... up to a minute, each between half and one and a half times that, so the
 * deliveries waiting for one endpoint do not all come back at once. (Math.random is deterministic
 * inside a workflow: Temporal seeds it.)
 */
const busyWaitMs = (turn: number) => Math.min(1_000 * 2 ** turn, 60_000) * (0.5 + Math.random());

/** One delivery of one event to one endpoint, through the retry ladder. Cancelled while it waits, it just ends. */
export async function deliverWebhookWorkflow(
  input: DeliveryInput,
): Promise<{ outcome: DeliveryOutcome; attempts: number }> {
  const from = input.rung ?? 0;
  for (let i = from; i < ATTEMPTS_PER_LADDER; i++) {
    const attempt = input.firstAttempt + i - from;
    const wait = RETRY_LADDER_MS[i];
    const attemptInput = { ...input, attempt, nextDelayMs: wait ?? null, first: i === 0 };
    let made = await attemptDelivery(attemptInput);
    // The endpoint has its cap of attempts in flight (a slow receiver): wait, then make this attempt.
    for (let turn = 0; made.outcome === 'busy'; turn++) {
      await sleep(busyWaitMs(turn));
      made = await attemptDelivery(attemptInput);
    }
    // Where a ladder stands, in the memo the Web UI lists beside each run: a struggling endpoint's
    // deliveries show how far they have come and what it last answered without opening a history. A
    // delivery done at its first attempt records nothing more. Behind a patch: runs parked before it
    // replay their history without these commands.
    if ((i > from || made.outcome === 'retry') && patched(PROGRESS_MEMO))
      upsertMemo({ attempts: attempt, last_response: made.status ?? made.errorClass ?? null });
    const { outcome } = made;
    if (outcome !== 'retry' || wait === undefined)
      return { outcome: outcome === 'retry' ? 'exhausted' : outcome, attempts: attempt };
    // Longer than the ladder's step when the receiver's Retry-After asked for longer (capped by the activity).
    await sleep(made.waitMs ?? wait);
  }
  throw new Error('unreachable: the ladder ends with its last attempt');
}

// Auto-upgrade: a ladder lives up to 22.6 hours, and a fix must reach the ladders already parked, not wait a
// day for them to drain; a change to it ships behind patched() (docs/temporal.md, "Deploys").
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, deliverWebhookWorkflow);
