import { isCancellation, proxyActivities, setWorkflowOptions, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  SEND_ATTEMPTS,
  SEND_LADDER_MS,
  SEND_TIMEOUT_MS,
  type ProviderResult,
  type AttemptOutcome,
} from '../domain/conversations/sending';

export type SendMessageInput = {
  messageId: string;
  /** Hand-overs an earlier run already made (none for a message the relay starts). */
  attemptsBefore?: number;
};

// Claiming and recording are our own database work: retried until they succeed.
const { claimMessage, settleMessage } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});
// The hand-over is never retried by Temporal: a hand-over cut off (a killed worker) may have left,
// and sending it again could send it twice. Transient provider failures come back as results.
const { handOverMessage } = proxyActivities<Activities>({
  startToCloseTimeout: SEND_TIMEOUT_MS + 10_000,
  retry: { maximumAttempts: 1 },
});

const CUT_OFF: ProviderResult = {
  kind: 'permanent',
  error:
    'interrupted: the hand-over to the provider was cut off, so it may or may not have left; it is not sent again, so it is never sent twice',
};

/** One outbound message, through its retry ladder: `message:<id>` in the Web UI. */
export async function sendMessageWorkflow(
  input: SendMessageInput,
): Promise<{ outcome: AttemptOutcome; attempts: number }> {
  for (let i = 0; i < SEND_ATTEMPTS; i++) {
    const claim = await claimMessage(input.messageId, (input.attemptsBefore ?? 0) + i + 1);
    if ('done' in claim) return { outcome: claim.done, attempts: i };
    let result: ProviderResult;
    try {
      result = await handOverMessage(claim.send);
    } catch (err) {
      if (isCancellation(err)) throw err;
      result = CUT_OFF;
    }
    const outcome = await settleMessage(claim.send, result, i === SEND_ATTEMPTS - 1);
    if (outcome !== 'retry') return { outcome, attempts: i + 1 };
    await sleep(SEND_LADDER_MS[i]!);
  }
  throw new Error('unreachable: the ladder ends with its last attempt');
}

// Auto-upgrade: a message's ladder lives up to 8.6 hours; a change to it ships behind patched()
// (docs/temporal.md, "Deploys").
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, sendMessageWorkflow);
