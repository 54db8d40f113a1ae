import {
  ApplicationFailure,
  condition,
  defineQuery,
  defineUpdate,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ApprovalView } from '../domain/approvals/rows';
import { APPROVAL_STATUS } from '../worker/search-attributes';

export type ApprovalInput = {
  approvalId: string;
  /** How long the request waits for a decision (7 days). */
  waitMs: number;
};
export type DecisionArgs = { decision: 'approve' | 'reject'; approverEmail: string; reason?: string };

/**
 * A person's decision, as an Update: the approver learns the outcome (EXECUTED with its result,
 * FAILED with the reason, REJECTED). A decision the validator refuses (already decided, expired)
 * leaves no trace in the workflow's history.
 */
export const decideUpdate = defineUpdate<ApprovalView, [DecisionArgs]>('decide');
export const statusQuery = defineQuery<string>('status');

// Refusals (a member who is not an admin, a request no longer pending) are not retried; our own faults are.
const { recordApprovalDecision, runApprovedRequest, expireApprovalRequest } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: ['DomainError'],
  },
});

/**
 * One parked request, `approval:<id>`: waits up to 7 days for a person's decision. On approval the
 * operation runs exactly once, on the approver's authority; undecided, it ends EXPIRED.
 */
export async function approvalWorkflow(input: ApprovalInput): Promise<ApprovalView> {
  let status = 'PENDING';
  let deciding = false;
  let outcome: ApprovalView | undefined;
  const show = (next: string) => {
    status = next;
    upsertSearchAttributes([{ key: APPROVAL_STATUS, value: next }]);
  };

  setHandler(statusQuery, () => status);
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
      validator: (d: DecisionArgs) => {
        if (d.decision !== 'approve' && d.decision !== 'reject')
          throw ApplicationFailure.nonRetryable('The decision must be approve or reject.', 'DomainError');
        if (deciding || status !== 'PENDING')
          throw ApplicationFailure.nonRetryable(
            `This request is no longer waiting for a decision: it is ${deciding ? 'being decided' : status}.`,
            'DomainError',
          );
      },
    },
  );

  const decided = await condition(() => status !== 'PENDING', input.waitMs);
  // A decision being recorded as the time runs out wins or loses in the database, never both.
  await condition(() => !deciding);
  if (!decided && status === 'PENDING') {
    outcome = await expireApprovalRequest(input.approvalId);
    show(outcome.status);
  }
  return outcome!;
}
