import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Decision } from '../kernel/gate';
import type { ApprovalView } from './views';

/**
 * What the request's workflow (`workflows/approval.ts`) and those who talk to it share: its type
 * name, input, and messages. Pure definitions, safe inside the workflow sandbox.
 */
export const APPROVAL_WORKFLOW_TYPE = 'approvalWorkflow';

export type ApprovalInput = {
  approvalId: string;
  /** How long the request waits for a decision (what is left of its 7 days). */
  waitMs: number;
};

/**
 * A person's decision, as an Update: the approver learns the outcome (EXECUTED with its result,
 * FAILED with the reason, REJECTED). A decision the validator refuses leaves no trace in the history.
 */
export const decideUpdate = defineUpdate<ApprovalView, [Decision]>('decide');
/** The key that parked the request withdrew it (already recorded): stop waiting. */
export const withdrawnSignal = defineSignal('withdrawn');
export const statusQuery = defineQuery<string>('status');
