import {
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsStartWorkflowAction,
  type ScheduleSpec,
} from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { type Agent, type Cadence, cadenceText, type ScheduleState } from '../../domain/agents';
import { WORKSPACE_ID } from '../../domain/kernel/search-attributes';
import { agentRunWorkflow } from '../../workflows/agent-run';
import { startOnce } from './start-once';
import { agentRunNowId, agentScheduleId } from './workflow-ids';

const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;

/** The cadence as Temporal's calendar, in the workspace's zone (Temporal handles daylight saving). */
function scheduleSpec(c: Cadence, timezone: string): ScheduleSpec {
  const [hour, minute] = c.time.split(':').map(Number) as [number, number];
  return {
    calendars: [
      { dayOfWeek: [...c.days].sort().map((d) => DAYS[d - 1]!), hour, minute, comment: cadenceText(c) },
    ],
    timezone,
  };
}

/**
 * A missed run is caught up only within this window (a worker or server outage): an agent does not
 * replay a day of runs when it comes back, it waits for its next slot.
 */
const CATCHUP_WINDOW = '10 minutes';

export type AgentScheduler = {
  /** Makes Temporal match the agent: a schedule for ACTIVE, paused for PAUSED, none once STOPPED. */
  sync: (agent: Agent, timezone: string) => Promise<void>;
  /** What Temporal says of the schedule, or undefined when it cannot be asked. */
  describe: (agentId: string) => Promise<ScheduleState>;
};

/** The agents' schedules on Temporal: `agent:<id>`, each firing `agentRunWorkflow` at its cadence. */
export const agentScheduler = (client: () => Promise<Client>, taskQueue: string): AgentScheduler => {
  const action = (
    a: Agent,
    timezone: string,
  ): ScheduleOptionsStartWorkflowAction<typeof agentRunWorkflow> => ({
    type: 'startWorkflow',
    workflowType: agentRunWorkflow,
    taskQueue,
    // Temporal appends the run's time: agent:<id>-2026-11-24T08:00:00Z.
    workflowId: agentScheduleId(a.id),
    args: [{ agentId: a.id, trigger: 'schedule' }],
    memo: { agent_id: a.id, workspace_id: a.workspace_id, name: a.name, type: a.type },
    typedSearchAttributes: [{ key: WORKSPACE_ID, value: a.workspace_id }],
    staticSummary: `Agent "${a.name}" (${a.type}): ${a.cadence ? cadenceText(a.cadence) : ''} ${timezone}, review level ${a.review_level}`,
  });

  const startRunNow = async (a: Agent) => {
    await startOnce(await client(), agentRunWorkflow, {
      taskQueue,
      workflowId: agentRunNowId(a.id, a.run_requested_at!),
      args: [{ agentId: a.id, trigger: 'run_now' }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      memo: { agent_id: a.id, workspace_id: a.workspace_id, name: a.name, type: a.type },
      typedSearchAttributes: [{ key: WORKSPACE_ID, value: a.workspace_id }],
      staticSummary: `Agent "${a.name}" (${a.type}): a run a person asked for now`,
    });
  };

  const sync = async (a: Agent, timezone: string) => {
    const c = await client();
    const handle = c.schedule.getHandle(agentScheduleId(a.id));
    const described = await handle.describe().catch((err: unknown) => {
      if (err instanceof ScheduleNotFoundError) return undefined;
      throw err;
    });
    if (a.status === 'ACTIVE' && a.cadence) {
      const spec = scheduleSpec(a.cadence, timezone);
      if (!described)
        await c.schedule.create({
          scheduleId: agentScheduleId(a.id),
          spec,
          action: action(a, timezone),
          policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: CATCHUP_WINDOW },
          state: { note: `Agent "${a.name}" started (approved by a person)` },
          memo: { agent_id: a.id, workspace_id: a.workspace_id, name: a.name, type: a.type },
        });
      else {
        await handle.update((prev) => ({ ...prev, spec, action: action(a, timezone) }));
        if (described.state.paused)
          await handle.unpause(`Agent "${a.name}" started again (approved by a person)`);
      }
    } else if (a.status === 'PAUSED' && described && !described.state.paused) {
      await handle.pause(`Agent "${a.name}" paused`);
    } else if (a.status === 'STOPPED' && described) {
      await handle.delete();
    }
    if (a.run_requested_at) await startRunNow(a);
  };

  const describe = async (agentId: string): Promise<ScheduleState> => {
    try {
      const d = await (await client()).schedule.getHandle(agentScheduleId(agentId)).describe();
      return {
        exists: true,
        paused: d.state.paused,
        note: d.state.note ?? null,
        next_runs: d.info.nextActionTimes.slice(0, 5).map((t) => t.toISOString()),
      };
    } catch (err) {
      if (err instanceof ScheduleNotFoundError)
        return { exists: false, paused: false, note: null, next_runs: [] };
      throw err;
    }
  };

  return { sync, describe };
};
