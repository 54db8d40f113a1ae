import { Context } from '@temporalio/activity';
import { type AgentRunInput, beginRun, finishRun, runBatch } from '../domain/agents';
import type { Services } from '../domain/kernel/operation';

/** Leads one batch of a run takes (each in its own transaction). */
const BATCH_SIZE = 20;

/** An agent run's I/O: its row, its batches (through the registered operations), its end. */
export const createAgentRunActivities = (services: Services) => ({
  beginAgentRun: (input: AgentRunInput & { workflowId: string }) =>
    beginRun(services, { agentId: input.agentId, workflowId: input.workflowId, trigger: input.trigger }),

  /** `nowMs`: the workflow's clock, which the window and the daily limit are measured by. */
  agentRunBatch: (runId: string, nowMs: number) => {
    Context.current().heartbeat();
    return runBatch(services, runId, new Date(nowMs), BATCH_SIZE);
  },

  finishAgentRun: (runId: string, note: string | null, failed: boolean) =>
    finishRun(services, runId, note, failed),
});
