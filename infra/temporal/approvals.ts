import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import { type Approval, type ApprovalView, parkGatedCall, refuseLateDecision } from '../../domain/approvals';
import type { Decision, Gate } from '../../domain/kernel/gate';
import type { Ports, StartJob } from '../../domain/kernel/operation';
import { APPROVAL_OPERATION, APPROVAL_STATUS, WORKSPACE_ID } from '../../domain/kernel/search-attributes';
import { approvalWorkflow, decideUpdate, withdrawnSignal } from '../../workflows/approval';
import { refusalOf } from './failures';
import { startOnce } from './start-once';
import { approvalWorkflowId } from './workflow-ids';

/**
 * Starts a parked request's workflow, `approval:<id>`, with what an operator filters on in the Web UI
 * (workspace, operation, status) and a readable summary. Starting one that exists is refused by
 * Temporal and ignored here: the same request asked again.
 */
export const approvalStarter =
  (client: Client, taskQueue: string): StartJob<Approval> =>
  (approval) =>
    startOnce(client, approvalWorkflow, {
      taskQueue,
      workflowId: approvalWorkflowId(approval.id),
      args: [
        {
          approvalId: approval.id,
          // What is left of the wait: a request started late (by the reconciler) still expires on time.
          waitMs: Math.max(0, approval.expires_at.getTime() - Date.now()),
        },
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

/**
 * Sends a person's decision to the request's workflow as an Update and answers how the request ended:
 * EXECUTED (with the operation's result), FAILED (with the reason) or REJECTED. A refusal (not an
 * admin, no longer waiting) keeps its code; a request whose workflow has ended says what it is now.
 */
async function decideThroughWorkflow(
  db: DataSource,
  client: Client,
  approvalId: string,
  decision: Decision,
): Promise<ApprovalView> {
  try {
    return await client.workflow
      .getHandle(approvalWorkflowId(approvalId))
      .executeUpdate(decideUpdate, { args: [decision] });
  } catch (err) {
    const refusal = err instanceof WorkflowUpdateFailedError ? refusalOf(err) : undefined;
    if (refusal) throw refusal;
    if (err instanceof WorkflowUpdateFailedError) throw err;
    // The workflow is gone or ended (expired, withdrawn, decided): the record says where the request stands.
    await refuseLateDecision(db, approvalId, decision);
    throw err;
  }
}

/**
 * The approval gate on Temporal: parked requests wait in `approval:<id>` workflows for a person.
 * `temporal` gives the client when first needed, so a door can start before Temporal is up. `mail`
 * (SECRETS_KEY and PUBLIC_URL) is what a new request's mail to its deciders is sealed with and links to.
 */
export function approvalGate(
  db: DataSource,
  temporal: () => Promise<Client>,
  taskQueue: string,
  mail: Pick<Ports, 'secretsKey' | 'publicUrl'>,
): Gate {
  const start = async (row: Approval) => approvalStarter(await temporal(), taskQueue)(row);
  return {
    park: async (data, call) => {
      const { parked, request } = await parkGatedCall(data, call, mail);
      return { parked, start: () => start(request) };
    },
    decide: async (approvalId, decision) => decideThroughWorkflow(db, await temporal(), approvalId, decision),
    withdrawn: async (approvalId) => {
      try {
        const client = await temporal();
        await client.workflow.getHandle(approvalWorkflowId(approvalId)).signal(withdrawnSignal);
      } catch (err) {
        // Already ended: the withdrawal on record is what counts.
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    },
  };
}
