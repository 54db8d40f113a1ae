import type { Parked } from '../kernel/gate';
import { WITHDRAWN_BY_ASSISTANT, type ApprovalView, type RecordedError } from './views';

/**
 * A parked request seen as a task of the MCP tasks extension (`io.modelcontextprotocol/tasks`): the
 * task id is the approval id, and its life is the request's. Waiting (and running once approved) is
 * `working`; EXECUTED is `completed` with the operation's output, FAILED `completed` with the refusal
 * the tool would have answered; REJECTED and EXPIRED are `failed`, and so is FAILED when the gate
 * refused the run before the operation ran (what was approved changed, the requester lost authority);
 * withdrawn is `cancelled`, with the reason (the assistant's own withdrawal, or its key revoked).
 */
export type TaskState = {
  taskId: string;
  status: 'working' | 'completed' | 'failed' | 'cancelled';
  statusMessage: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  /** On `completed`: what the operation answered, or how it refused. */
  outcome?: { output: unknown } | { error: RecordedError };
  /** On `failed`: why it never ran. */
  failure?: { status: 'REJECTED' | 'EXPIRED' | 'FAILED'; reason: string };
};

/** Covers the 7 days a request waits, and a week more to fetch how it ended. */
const TASK_TTL_MS = 14 * 86_400_000;
/** A person decides in minutes or days: polling every 30 seconds is plenty. */
const TASK_POLL_INTERVAL_MS = 30_000;

const waiting = (summary: string) => `Waiting for a person to approve: ${summary}. Nothing has happened yet.`;

/** The task a gated call answers with, as it parks. */
export const taskOfParked = (p: Parked): TaskState => ({
  taskId: p.approval_id,
  status: 'working',
  // Where the person decides, for the assistant to hand its user (the page grants nothing without signing in).
  statusMessage: `${waiting(p.summary)} A person decides at ${p.approval_url}.`,
  createdAt: p.created_at,
  lastUpdatedAt: p.created_at,
  ttlMs: TASK_TTL_MS,
  pollIntervalMs: TASK_POLL_INTERVAL_MS,
});

export function taskOf(a: ApprovalView): TaskState {
  const base = {
    taskId: a.id,
    createdAt: a.created_at,
    lastUpdatedAt: a.finished_at ?? a.decided_at ?? a.created_at,
    ttlMs: TASK_TTL_MS,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  };
  switch (a.status) {
    case 'PENDING':
      return { ...base, status: 'working', statusMessage: waiting(a.summary) };
    case 'APPROVED':
      return { ...base, status: 'working', statusMessage: `Approved; running: ${a.summary}.` };
    case 'EXECUTED':
      return {
        ...base,
        status: 'completed',
        statusMessage: `Approved and done: ${a.summary}.`,
        outcome: { output: a.outcome },
      };
    case 'FAILED':
      if (a.error?.refused_by === 'gate')
        return {
          ...base,
          status: 'failed',
          statusMessage: `Approved, but not run: ${a.reason ?? a.error.message}`,
          failure: { status: 'FAILED', reason: a.reason ?? a.error.message },
        };
      return {
        ...base,
        status: 'completed',
        statusMessage: `Approved, but refused when it ran: ${a.reason ?? 'no reason recorded'}`,
        outcome: { error: a.error ?? { code: 'conflict', message: a.reason ?? 'Refused when it ran.' } },
      };
    case 'REJECTED':
      return {
        ...base,
        status: 'failed',
        statusMessage: `Rejected by a person${a.reason ? `: ${a.reason}` : '.'} Nothing happened.`,
        failure: { status: 'REJECTED', reason: a.reason ?? 'Rejected.' },
      };
    case 'EXPIRED':
      return {
        ...base,
        status: 'failed',
        statusMessage: 'Nobody decided within 7 days; it expired. Nothing happened.',
        failure: { status: 'EXPIRED', reason: a.reason ?? 'Nobody decided within 7 days.' },
      };
    case 'CANCELLED':
      return {
        ...base,
        status: 'cancelled',
        statusMessage:
          !a.reason || a.reason === WITHDRAWN_BY_ASSISTANT
            ? 'Withdrawn before anyone decided. Nothing happened.'
            : `Withdrawn before anyone decided: ${a.reason}. Nothing happened.`,
      };
    default: {
      const unreachable: never = a.status;
      return unreachable;
    }
  }
}
