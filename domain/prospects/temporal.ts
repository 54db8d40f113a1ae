import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { WORKSPACE_ID } from '../kernel/search-attributes';
import type { SourcingRun } from './entities';
import { sourcingWorkflowId } from './views';

export const SOURCING_WORKFLOW_TYPE = 'sourcingWorkflow';

/** Starts a sourcing run's workflow, `sourcing:<id>`, saying in the Web UI which list it scores. */
export const sourcingStarter =
  (client: Client, taskQueue: string) =>
  async (r: SourcingRun & { list_name: string }): Promise<void> => {
    try {
      await client.workflow.start(SOURCING_WORKFLOW_TYPE, {
        taskQueue,
        workflowId: sourcingWorkflowId(r.id),
        args: [{ runId: r.id }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        staticSummary: `Score prospect list "${r.list_name}" (${r.scoring_version}${r.max_candidates ? `, up to ${r.max_candidates}` : ''})`,
        memo: {
          sourcing_run_id: r.id,
          list_id: r.list_id,
          list: r.list_name,
          workspace_id: r.workspace_id,
          agent_id: r.agent_id,
        },
        typedSearchAttributes: [{ key: WORKSPACE_ID, value: r.workspace_id }],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  };
