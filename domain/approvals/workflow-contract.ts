import type { Decision } from '../kernel/gate';
import type { ApprovalView } from './views';

/**
 * What the request's workflow (`workflows/approval.ts`) and those who talk to it share. Types only,
 * safe inside the workflow sandbox; the workflow defines its messages beside itself.
 */
export type ApprovalInput = {
  approvalId: string;
  /** How long the request waits for a decision (what is left of its 7 days). */
  waitMs: number;
};

/** A person's decision, as the workflow's `decide` Update takes it. */
export type ApprovalDecision = Decision;
/** How the request ended (EXECUTED with its result, FAILED with the reason, REJECTED). */
export type ApprovalAnswer = ApprovalView;
