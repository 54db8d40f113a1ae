import { ApplicationFailure } from '@temporalio/activity';
import { expireApproval, recordDecision, runApproved, type Decision } from '../domain/approvals/decide';
import { approvalView, findApproval, type ApprovalView } from '../domain/approvals/rows';
import { DomainError } from '../domain/kernel/errors';
import type { Services } from '../domain/kernel/operation';

/** A refusal reaches the approver as it is and is not retried; anything else is our fault and is. */
async function refusalsAsFailures<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof DomainError) throw ApplicationFailure.nonRetryable(err.message, 'DomainError');
    throw err;
  }
}

/** The approval gate's I/O: a decision, the approved run, the expiry. Built from the same services as every door. */
export const createApprovalActivities = (services: Services) => ({
  async recordApprovalDecision(approvalId: string, decision: Decision): Promise<ApprovalView> {
    return refusalsAsFailures(async () => {
      await recordDecision(services.db, approvalId, decision);
      return approvalView((await findApproval(services.db, approvalId))!);
    });
  },
  async runApprovedRequest(approvalId: string): Promise<ApprovalView> {
    return refusalsAsFailures(() => runApproved(services, approvalId));
  },
  async expireApprovalRequest(approvalId: string): Promise<ApprovalView> {
    return expireApproval(services.db, approvalId);
  },
});
