import type { ReconcileReport } from '../../activities/maintenance';
import { waitFor } from '../../tooling/processes';
import { scheduleIds } from '../../infra/temporal/workflow-ids';
import type { reconcileDeliveriesWorkflow } from '../../workflows/maintenance';
import type { ChaosStack } from './stack';
import { within } from './within';

export type ReconcileFindings = {
  /** The reconcile schedule's run triggered at the end of the run, or why there is none. */
  triggered: ReconcileReport | string;
  /** Deliveries it restarted or ended during the run (its audit rows). */
  audited: { reason: string; n: number }[];
};

/**
 * What the reconciler makes of the state the faults left, asked after the invariants were judged
 * (they never rely on it): one run of its schedule triggered now, and its audit rows of the run.
 * It only looks at deliveries 10 minutes overdue, so in a run this short it should find nothing.
 */
export async function reconcileFindings(stack: ChaosStack): Promise<ReconcileFindings> {
  const audited = await stack.db.query<{ reason: string; n: number }[]>(
    `SELECT reason, count(*)::int AS n FROM audit_log WHERE action = 'delivery.reconcile' GROUP BY reason ORDER BY reason`,
  );
  let triggered: ReconcileReport | string;
  try {
    const handle = stack.client.schedule.getHandle(scheduleIds(stack.taskQueue).reconcile);
    const before = (await handle.describe()).info.recentActions.length;
    await handle.trigger();
    const action = await waitFor('the triggered reconcile run', async () => {
      const actions = (await handle.describe()).info.recentActions;
      return actions.length > before ? actions.at(-1) : undefined;
    });
    triggered = await within(
      'the reconcile run to finish',
      60_000,
      stack.client.workflow
        .getHandle<typeof reconcileDeliveriesWorkflow>(
          action.action.workflow.workflowId,
          action.action.workflow.firstExecutionRunId,
        )
        .result(),
    );
  } catch (err) {
    triggered = `not run: ${String(err)}`;
  }
  return { triggered, audited };
}
