import type { Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { StartJob } from '../../domain/kernel/operation';
import { WORKSPACE_ID } from '../../domain/kernel/search-attributes';
import type { SourcingRun } from '../../domain/prospects';
import { sourcingWorkflow } from '../../workflows/sourcing';
import { startOnce } from './start-once';
import { sourcingWorkflowId } from './workflow-ids';

/** Starts a sourcing run's workflow, `sourcing:<id>`, saying in the Web UI which list it scores. */
export const sourcingStarter =
  (client: Client, taskQueue: string): StartJob<SourcingRun & { list_name: string }> =>
  (r) =>
    startOnce(client, sourcingWorkflow, {
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
