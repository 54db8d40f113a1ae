import type { DataSource } from 'typeorm';
import { type Approval, unstartedApprovals } from '../domain/approvals';
import { unstartedBookings } from '../domain/appointments';
import { messageUpkeep } from '../domain/conversations';
import { writeAudit } from '../domain/kernel/audit';
import { Data } from '../domain/kernel/data';
import type { StartJob } from '../domain/kernel/operation';
import { purgeAuditRows, purgeIdempotencyKeys } from '../domain/kernel/retention';
import { sweepRecords } from '../domain/oauth';
import { ATTEMPTS_PER_LADDER, deliveryUpkeep, type StartDelivery } from '../domain/webhooks';
import {
  approvalWorkflowId,
  appointmentWorkflowId,
  deliveryWorkflowId,
} from '../infra/temporal/workflow-ids';

/** A workflow's state as Temporal reports it (`RUNNING`, `TERMINATED`...), or `NOT_FOUND`. */
type WorkflowStatusOf = (workflowId: string) => Promise<string>;

export type MaintenanceDeps = {
  db: DataSource;
  startDelivery: StartDelivery;
  startApproval: StartJob<Approval>;
  /** Starts a booking's workflow (`appointment:<id>`); absent where no booking is ever made. */
  startAppointment?: StartJob<string>;
  workflowStatus: WorkflowStatusOf;
  /** How long idempotency keys (hours), audit rows and events (days) are kept. */
  retention: { idempotencyHours: number; auditDays: number; eventDays: number };
};

/** How long past its due time a waiting delivery (or an unstarted request) must be before it is looked at. */
const GRACE_MINUTES = 10;
const BATCH = 500;
const PURGE_BATCH = 5_000;

export type ReconcileReport = {
  examined: number;
  restarted: number;
  ended: number;
  approvals_started: number;
  appointments_started: number;
  /** Secrets whose rotation overlap had ended, destroyed. */
  secrets_destroyed: number;
};
export type RetentionReport = {
  idempotency_keys: number;
  audit_rows: number;
  events: number;
  /** Absent in the histories of runs from before mail reports were kept. */
  mail_reports?: number;
  /** Absent in the histories of runs from before assistants connected over OAuth. */
  oauth_records?: number;
};

export const createMaintenanceActivities = (deps: MaintenanceDeps) => {
  /**
   * Starts each record's workflow that Temporal has never heard of, auditing why (`<action>`), and
   * answers how many it started.
   */
  const startOrphans = async <R extends { id: string; workspace_id: string }>(
    rows: R[],
    what: {
      action: string;
      idField: string;
      workflowId: (id: string) => string;
      start: (row: R) => Promise<void>;
    },
  ): Promise<number> => {
    let started = 0;
    for (const r of rows) {
      const workflowId = what.workflowId(r.id);
      if ((await deps.workflowStatus(workflowId)) !== 'NOT_FOUND') continue;
      await what.start(r);
      await writeAudit(deps.db.manager, {
        door: 'activity',
        action: what.action,
        outcome: 'allowed',
        reason: 'started: its workflow had not started',
        workspaceId: r.workspace_id,
        details: { [what.idField]: r.id, workflow_id: workflowId },
      });
      started += 1;
    }
    return started;
  };

  /**
   * Parked requests whose workflow never started. Only the last hour's are looked at (the schedule
   * runs every few minutes), so a workspace's many requests waiting for a person cost nothing here.
   */
  const startOrphanedApprovals = async () =>
    startOrphans(await unstartedApprovals(deps.db, GRACE_MINUTES, BATCH), {
      action: 'approval.reconcile',
      idField: 'approval_id',
      workflowId: approvalWorkflowId,
      start: deps.startApproval,
    });

  /** Bookings whose workflow never started (Temporal was down, or the API died, after the commit). */
  const startOrphanedAppointments = async () => {
    const start = deps.startAppointment;
    if (!start) return 0;
    return startOrphans(await unstartedBookings(deps.db, GRACE_MINUTES, BATCH), {
      action: 'appointment.reconcile',
      idField: 'appointment_id',
      workflowId: appointmentWorkflowId,
      start: (a) => start(a.id),
    });
  };

  /** Destroys the secrets rotations replaced once their overlap is over, each audited. */
  const destroyRetiredSecrets = () =>
    deps.db.transaction(async (m) => {
      const retired = await deliveryUpkeep(new Data(m, undefined)).destroyRetiredSecrets();
      for (const e of retired)
        await audit(
          m,
          e.workspace_id,
          'the rotated secret destroyed: its overlap ended',
          { endpoint_id: e.id },
          'endpoint.retire_secret',
        );
      return retired.length;
    });

  return {
    /**
     * Finds deliveries that nothing will move again and moves them: a FAILED one well past its
     * `next_attempt_at`, or a PENDING one long unstarted, whose workflow is gone (terminated, lost with
     * the Temporal server's data, closed without recording). Each is restarted at the rung it reached,
     * or ended EXHAUSTED when its ladder is spent, and the reason is audited. Approval requests whose
     * workflow never started (Temporal was down when they were parked) are started. Secrets whose
     * rotation overlap ended are destroyed.
     */
    async reconcileDeliveries(): Promise<ReconcileReport> {
      const { db } = deps;
      const stuck = await deliveryUpkeep(new Data(db.manager, undefined)).stuck(GRACE_MINUTES, BATCH);
      const report: ReconcileReport = {
        examined: stuck.length,
        restarted: 0,
        ended: 0,
        approvals_started: 0,
        appointments_started: 0,
        secrets_destroyed: 0,
      };
      for (const d of stuck) {
        const workflowId = deliveryWorkflowId(d.id, d.generation);
        const workflow = await deps.workflowStatus(workflowId);
        if (workflow === 'RUNNING') continue; // slow (waiting for its endpoint), not stuck
        const why = {
          delivery_id: d.id,
          generation: d.generation,
          workflow_id: workflowId,
          workflow_status: workflow,
        };
        if (d.rung >= ATTEMPTS_PER_LADDER) {
          const ended = await db.transaction(async (m) => {
            const done = await deliveryUpkeep(new Data(m, d.workspace_id)).end(d);
            if (done) await audit(m, d.workspace_id, 'ended: its ladder was spent', why);
            return done;
          });
          if (ended) report.ended += 1;
          continue;
        }
        await deps.startDelivery(d, { rung: d.rung });
        await audit(db.manager, d.workspace_id, `restarted at attempt ${d.attempts + 1}`, why);
        report.restarted += 1;
      }
      report.approvals_started = await startOrphanedApprovals();
      report.appointments_started = await startOrphanedAppointments();
      report.secrets_destroyed = await destroyRetiredSecrets();
      return report;
    },

    /** Deletes what has outlived its retention, in batches so no statement runs long. */
    async purgeExpired(): Promise<RetentionReport> {
      const { db, retention } = deps;
      /** Runs a batch (it deletes up to PURGE_BATCH rows and answers how many) until one comes up short. */
      const inBatches = async (batch: () => Promise<number>) => {
        let total = 0;
        for (;;) {
          const n = await batch();
          total += n;
          if (n < PURGE_BATCH) return total;
        }
      };
      const data = new Data(db.manager, undefined);
      const deliveries = deliveryUpkeep(data);
      return {
        // Never inside the 24-hour replay window (the setting's minimum).
        idempotency_keys: await inBatches(() =>
          purgeIdempotencyKeys(data, retention.idempotencyHours, PURGE_BATCH),
        ),
        audit_rows: await inBatches(() => purgeAuditRows(data, retention.auditDays, PURGE_BATCH)),
        // An event still being delivered stays until its delivery ends; its deliveries go with it.
        events: await inBatches(() => deliveries.purgeEvents(retention.eventDays, PURGE_BATCH)),
        // Stored for every report, forged ones too: kept as long as the audit rows that record them.
        mail_reports: await inBatches(() =>
          messageUpkeep(data).purgeReports(retention.auditDays, PURGE_BATCH),
        ),
        // The authorization server's codes, tokens and interactions a day after they expired.
        oauth_records: await inBatches(() => sweepRecords(data, PURGE_BATCH)),
      };
    },
  };
};

async function audit(
  m: Parameters<typeof writeAudit>[0],
  workspaceId: string,
  reason: string,
  details: Record<string, unknown>,
  action = 'delivery.reconcile',
) {
  await writeAudit(m, {
    door: 'activity',
    action,
    outcome: 'allowed',
    reason,
    workspaceId,
    details,
  });
}
