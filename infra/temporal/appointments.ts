import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import { bookingNamed, refuseLateBookingDecision } from '../../domain/appointments';
import type { BookingDesk } from '../../domain/kernel/operation';
import { appointmentWorkflow, decideUpdate } from '../../workflows/appointment';
import { refusalOf } from './failures';
import { startOnce } from './start-once';
import { appointmentWorkflowId } from './workflow-ids';

/**
 * Bookings on Temporal: each waits in `appointment:<id>` (memo and summary say which booking, so the
 * Web UI tells an operator), and a person's decision is an Update to it. `temporal` gives the client
 * when first needed. Starting one that exists is refused by Temporal and ignored here.
 */
export function bookingDesk(db: DataSource, temporal: () => Promise<Client>, taskQueue: string): BookingDesk {
  return {
    start: async (appointmentId) => {
      const row = await bookingNamed(db, appointmentId);
      if (!row) return;
      const startsAt = row.starts_at.toISOString();
      await startOnce(await temporal(), appointmentWorkflow, {
        taskQueue,
        workflowId: appointmentWorkflowId(appointmentId),
        args: [{ appointmentId, startsAt }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        staticSummary: `Booking "${row.title}" at ${startsAt}: checks the calendar, then waits for its start`,
        memo: {
          appointment_id: row.id,
          workspace_id: row.workspace_id,
          lead_id: row.lead_id,
          starts_at: startsAt,
          ends_at: row.ends_at.toISOString(),
          provider: row.provider,
        },
      });
    },
    decide: async (appointmentId, decision) => {
      try {
        return await (
          await temporal()
        ).workflow
          .getHandle(appointmentWorkflowId(appointmentId))
          .executeUpdate(decideUpdate, { args: [decision] });
      } catch (err) {
        const refusal = err instanceof WorkflowUpdateFailedError ? refusalOf(err) : undefined;
        if (refusal) throw refusal;
        if (err instanceof WorkflowUpdateFailedError) throw err;
        // Its workflow has ended (the start passed, or it was declined or cancelled): say where it stands.
        await refuseLateBookingDecision(
          db,
          appointmentId,
          decision.action,
          err instanceof WorkflowNotFoundError,
        );
        throw err;
      }
    },
  };
}
