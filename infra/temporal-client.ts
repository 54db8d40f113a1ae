import {
  Client,
  Connection,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { approvalWorkflowId, type ApprovalRow } from '../domain/approvals/rows';
import { approvalWorkflow } from '../workflows/approval';
import { APPROVAL_OPERATION, APPROVAL_STATUS, WORKSPACE_ID } from '../worker/search-attributes';
import type { WorkflowCanceller } from '../domain/kernel/operation';

/** Cancels workflows by id; one already finished or never started is not an error. */
export const workflowCanceller =
  (client: Client): WorkflowCanceller =>
  async (ids) => {
    await Promise.all(
      ids.map(async (id) => {
        try {
          await client.workflow.getHandle(id).cancel();
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
      }),
    );
  };

/** A client for tools (the admin CLI) that only need to signal or cancel. */
export async function connectClient(address: string, namespace: string) {
  const connection = await Connection.connect({ address });
  return { client: new Client({ connection, namespace }), close: () => connection.close() };
}

/**
 * Starts a parked request's workflow, `approval:<id>`, with what an operator filters on in the Web UI
 * (workspace, operation, status) and a readable summary. Starting one that exists is refused by
 * Temporal and ignored here: the same request asked again.
 */
export const approvalStarter =
  (client: Client, taskQueue: string) =>
  async (approval: ApprovalRow): Promise<void> => {
    try {
      await client.workflow.start(approvalWorkflow, {
        taskQueue,
        workflowId: approvalWorkflowId(approval.id),
        args: [
          // What is left of the wait: a request started late (by the reconciler) still expires on time.
          { approvalId: approval.id, waitMs: Math.max(0, approval.expires_at.getTime() - Date.now()) },
        ],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        staticSummary: approval.summary,
        memo: {
          approval_id: approval.id,
          workspace_id: approval.workspace_id,
          operation: approval.operation,
          summary: approval.summary,
          requested_by_key: approval.requested_by_key,
          requested_by_user: approval.requested_by_user,
        },
        typedSearchAttributes: [
          { key: WORKSPACE_ID, value: approval.workspace_id },
          { key: APPROVAL_OPERATION, value: approval.operation },
          { key: APPROVAL_STATUS, value: 'PENDING' },
        ],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  };

/** A workflow's status name (`RUNNING`, `TERMINATED`...), or `NOT_FOUND` when Temporal has no such run. */
export const workflowStatus =
  (client: Client) =>
  async (workflowId: string): Promise<string> => {
    try {
      return (await client.workflow.getHandle(workflowId).describe()).status.name;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return 'NOT_FOUND';
      throw err;
    }
  };
