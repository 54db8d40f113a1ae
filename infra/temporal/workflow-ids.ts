import type { JobNames } from '../../domain/kernel/operation';

/**
 * The ids Temporal knows our durable jobs by, each built here and nowhere else
 * (test/unit/temporal-border.test.ts): meaningful, so the Web UI tells an operator what each run is, and
 * deterministic, so a duplicate start is refused by Temporal itself. Recorded histories carry them
 * (test/integration/replay.test.ts): a change here is a change of every running job's name. The domain
 * names none; where it shows or audits one, it asks its `jobNames` port (domain/kernel/operation.ts).
 */

/** `approval:<id>`: a parked request's wait for a person. */
export const approvalWorkflowId = (approvalId: string) => `approval:${approvalId}`;

/** `appointment:<id>`: a booking, from its calendar check to its start. */
export const appointmentWorkflowId = (appointmentId: string) => `appointment:${appointmentId}`;

/** `webhook-delivery:<id>`, and `:r<generation>` after it for each resend: one run of a delivery. */
export const deliveryWorkflowId = (deliveryId: string, generation: number) =>
  generation === 0 ? `webhook-delivery:${deliveryId}` : `webhook-delivery:${deliveryId}:r${generation}`;

/** `message:<id>`: one sending workflow per outbound message. */
export const messageWorkflowId = (messageId: string) => `message:${messageId}`;

/** `member-mail:<id>`: one sending workflow per mail to a member (a sign-in link, an invitation). */
export const memberMailWorkflowId = (mailId: string) => `member-mail:${mailId}`;

/** `campaign:<id>`: a launched campaign's one workflow. */
export const campaignWorkflowId = (campaignId: string) => `campaign:${campaignId}`;

/** `sourcing:<id>`: a sourcing run's workflow. */
export const sourcingWorkflowId = (runId: string) => `sourcing:${runId}`;

/** `quote:<id>`: a sent revision's expiry timer. */
export const quoteWorkflowId = (quoteId: string) => `quote:${quoteId}`;

/** `invoice:<id>`: an issued invoice's due-date timer. */
export const invoiceWorkflowId = (invoiceId: string) => `invoice:${invoiceId}`;

/**
 * `agent:<id>`: an agent's Temporal Schedule, and the stem of its runs' ids: Temporal appends the time a
 * scheduled run fires (`agent:<id>-2026-11-24T08:00:00Z`).
 */
export const agentScheduleId = (agentId: string) => `agent:${agentId}`;

/** `agent:<id>-now-<time>`: the run a person asked for at that time (whole seconds, UTC). */
export const agentRunNowId = (agentId: string, requestedAt: Date) =>
  `${agentScheduleId(agentId)}-now-${requestedAt.toISOString().replace(/\.\d{3}Z$/, 'Z')}`;

/**
 * The maintenance schedules' ids, which their runs' ids begin with: prefixed with the task queue, so
 * services sharing a namespace keep apart.
 */
export const scheduleIds = (taskQueue: string) => ({
  reconcile: `${taskQueue}:reconcile-deliveries`,
  retention: `${taskQueue}:retention`,
});

/** The names the domain asks for (its `jobNames` port): every process's, production's and the tests'. */
export const jobNames: JobNames = {
  approval: approvalWorkflowId,
  message: messageWorkflowId,
  campaign: campaignWorkflowId,
  sourcingRun: sourcingWorkflowId,
  agentSchedule: agentScheduleId,
};
