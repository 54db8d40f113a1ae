import {
  type ApprovalView,
  expireApproval,
  readApproval,
  recordDecision,
  runApproved,
} from '../domain/approvals';
import { refusalsAsFailures } from '../infra/temporal/failures';
import type { Decision } from '../domain/kernel/gate';
import type { Services } from '../domain/kernel/operation';
import { NO_METRICS, type ActivityMetrics } from './activity-metrics';

/**
 * The approval gate's I/O: a decision, the approved run, the expiry. Built from the same services as
 * every door. A refusal reaches the approver with its code and is not retried; our own faults are.
 */
export const createApprovalActivities = (services: Services, metrics: ActivityMetrics = NO_METRICS) => {
  const counted = async (moved: Promise<ApprovalView>) => {
    const view = await moved;
    metrics.approval(view.status);
    return view;
  };
  return {
    async recordApprovalDecision(approvalId: string, decision: Decision): Promise<ApprovalView> {
      return counted(refusalsAsFailures(() => recordDecision(services, approvalId, decision)));
    },
    async runApprovedRequest(approvalId: string): Promise<ApprovalView> {
      return counted(refusalsAsFailures(() => runApproved(services, approvalId)));
    },
    async expireApprovalRequest(approvalId: string): Promise<ApprovalView> {
      return counted(expireApproval(services.db, approvalId));
    },
    async readApprovalRequest(approvalId: string): Promise<ApprovalView> {
      return readApproval(services.db, approvalId);
    },
  };
};
