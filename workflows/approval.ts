import {
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyActivities,
  setHandler,
  setWorkflowOptions,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ApprovalAnswer, ApprovalDecision, ApprovalInput } from '../domain/approvals/workflow-contract';
import { APPROVAL_STATUS } from '../domain/kernel/search-attributes';
import { refusalFailure } from './refusals';

/**
 * A person's decision, as an Update: the approver learns the outcome (EXECUTED with its result,
 * FAILED with the reason, REJECTED). A decision the validator refuses leaves no trace in the history.
 */
export const decideUpdate = defineUpdate<ApprovalAnswer, [ApprovalDecision]>('decide');
/** The key that parked the request withdrew it (already recorded): stop waiting. */
export const withdrawnSignal = defineSignal('withdrawn');
const statusQuery = defineQuery<string>('status');

// Refusals (a member who is not an admin, a request no longer pending) are not retried; our own faults are.
const { recordApprovalDecision, runApprovedRequest, expireApprovalRequest, readApprovalRequest } =
  proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    retry: {
      initialInterval: '1 second',
      maximumInterval: '1 minute',
      nonRetryableErrorTypes: ['DomainError'],
    },
  });

/**
 * One parked request, `approval:<id>`: waits up to 7 days for a person's decision. On approval the
 * operation runs exactly once, on the approver's authority; undecided, it ends EXPIRED; withdrawn by
 * the key that parked it, it ends CANCELLED. The database decides every race; this only follows it.
 */
export async function approvalWorkflow(input: ApprovalInput): Promise<ApprovalAnswer> {
  let status = 'PENDING';
  let deciding = false;
  let withdrawn = false;
  let outcome: ApprovalAnswer | undefined;
  const show = (next: string) => {
    status = next;
    upsertSearchAttributes([{ key: APPROVAL_STATUS, value: next }]);
  };

  setHandler(statusQuery, () => status);
  setHandler(withdrawnSignal, () => {
    withdrawn = true;
  });
  setHandler(
    decideUpdate,
    async (d) => {
      deciding = true;
      try {
        const decided = await recordApprovalDecision(input.approvalId, d);
        show(decided.status);
        outcome = d.decision === 'approve' ? await runApprovedRequest(input.approvalId) : decided;
        show(outcome.status);
        return outcome;
      } finally {
        deciding = false;
      }
    },
    {
      validator: (d: ApprovalDecision) => {
        if (d.decision !== 'approve' && d.decision !== 'reject')
          throw refusalFailure('invalid_request', 'The decision must be approve or reject.');
        if (deciding || status !== 'PENDING' || withdrawn)
          throw refusalFailure(
            'conflict',
            `This request is no longer waiting for a decision: it is ${deciding ? 'being decided' : withdrawn ? 'CANCELLED' : status}.`,
          );
      },
    },
  );

  const decided = await condition(() => status !== 'PENDING' || withdrawn, input.waitMs);
  // A decision being recorded as the time runs out (or as it is withdrawn) wins or loses in the database.
  await condition(() => !deciding);
  if (status === 'PENDING') {
    outcome = decided
      ? await readApprovalRequest(input.approvalId)
      : await expireApprovalRequest(input.approvalId);
    show(outcome.status);
  }
  return outcome!;
}

// Auto-upgrade: a request waits up to 7 days for its decision, longer than a version should be kept
// running; a change to it ships behind patched() (docs/temporal.md, "Deploys").
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, approvalWorkflow);
