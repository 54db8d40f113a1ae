import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Logger } from '../logger';
import { scheduleIds } from './workflow-ids';
import { reconcileDeliveriesWorkflow, retentionWorkflow } from '../../workflows/maintenance';

/**
 * Creates the maintenance schedules if they do not exist yet (every worker tries; the first wins).
 * They show in the Temporal Web UI under Schedules, with their runs and results; an operator can
 * pause one or trigger it at once there.
 */
export async function ensureSchedules(client: Client, taskQueue: string, log: Logger): Promise<void> {
  const ids = scheduleIds(taskQueue);
  const schedules = [
    {
      scheduleId: ids.reconcile,
      spec: { intervals: [{ every: '5 minutes' }] },
      action: {
        type: 'startWorkflow' as const,
        workflowType: reconcileDeliveriesWorkflow.name,
        taskQueue,
        workflowId: ids.reconcile,
      },
      memo: { purpose: 'Restarts or ends webhook deliveries whose workflow is gone; audits why.' },
    },
    {
      scheduleId: ids.retention,
      spec: { intervals: [{ every: '1 hour' }] },
      action: {
        type: 'startWorkflow' as const,
        workflowType: retentionWorkflow.name,
        taskQueue,
        workflowId: ids.retention,
      },
      memo: { purpose: 'Deletes idempotency records, audit rows and events past their retention.' },
    },
  ];
  for (const s of schedules) {
    try {
      await client.schedule.create({ ...s, policies: { overlap: ScheduleOverlapPolicy.SKIP } });
      log.info('schedule created', { schedule_id: s.scheduleId });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
  }
}
