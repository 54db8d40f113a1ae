/**
 * What an agent's run workflow (`workflows/agent-run.ts`) and those who start it share. Pure
 * definitions, safe inside the workflow sandbox.
 */
export type AgentRunInput = {
  agentId: string;
  /** `schedule` for a run its cadence fired; `run_now` for one a person approved. */
  trigger: 'schedule' | 'run_now';
};

/** What one batch of a run did; `done` when the run has no more work (or may do no more). */
export type AgentBatchOutcome = { done: boolean; acted: number; note: string | null };

/** What a run's first step found: whether it may act, and why not. */
export type AgentRunStart = { runId: string; go: boolean; note: string | null };
