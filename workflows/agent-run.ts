import { proxyActivities, setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { AgentRunInput } from '../domain/agents/workflow-contract';

const { beginAgentRun, agentRunBatch, finishAgentRun } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '2 minutes',
    maximumAttempts: 10,
  },
});

/** A run never takes more batches than this; the per-run limit (at most 200) ends it far sooner. */
const MAX_BATCHES = 100;

/**
 * One run of an AI agent: `agent:<id>-<time>` when its schedule fires, `agent:<id>-now-<time>` when a
 * person approved a run now. It finds its work batch by batch within the agent's limits and the sending
 * window, measured by this workflow's clock; each lead's action commits once (a retried batch skips what
 * is done). What it did is in `agent.runs`.
 */
export async function agentRunWorkflow(
  input: AgentRunInput,
): Promise<{ runId: string; acted: number; note: string | null }> {
  const start = await beginAgentRun({ ...input, workflowId: workflowInfo().workflowId });
  if (!start.go) return { runId: start.runId, acted: 0, note: start.note };
  let acted = 0;
  let note: string | null = null;
  try {
    for (let i = 0; i < MAX_BATCHES; i++) {
      const outcome = await agentRunBatch(start.runId, Date.now());
      acted += outcome.acted;
      note = outcome.note;
      if (outcome.done) break;
    }
  } catch (err) {
    await finishAgentRun(start.runId, `failed: ${err instanceof Error ? err.message : String(err)}`, true);
    throw err;
  }
  await finishAgentRun(start.runId, note, false);
  return { runId: start.runId, acted, note };
}

// Pinned: a run is minutes of batches, so it ends on the code it began on, and a change to it needs no patch.
setWorkflowOptions({ versioningBehavior: 'PINNED' }, agentRunWorkflow);
