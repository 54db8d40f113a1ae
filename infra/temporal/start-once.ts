import {
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type Workflow,
  type WorkflowStartOptions,
} from '@temporalio/client';

/**
 * Starts `workflow` under the id in `options` unless a run with that id was already started: with the
 * id reuse policy REJECT_DUPLICATE (or a run still open), Temporal refuses the second start, and that
 * refusal is the point (a relay pass or a retry after a crash offers the same record again), so it is
 * ignored here. Every other failure is the caller's.
 */
export async function startOnce<W extends Workflow>(
  client: Client,
  workflow: W,
  options: WorkflowStartOptions<W>,
): Promise<void> {
  try {
    await client.workflow.start(workflow, options);
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
