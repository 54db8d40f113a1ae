import type { Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { MessageToStart } from '../../domain/conversations';
import type { StartJob } from '../../domain/kernel/operation';
import { WORKSPACE_ID } from '../../domain/kernel/search-attributes';
import { sendMessageWorkflow } from '../../workflows/send-message';
import { startOnce } from './start-once';
import { messageWorkflowId } from './workflow-ids';

/** Starts an outbound message's workflow, with a memo and summary that say in the Web UI what it sends. */
export const messageStarter =
  (client: Client, taskQueue: string): StartJob<MessageToStart> =>
  (m) =>
    startOnce(client, sendMessageWorkflow, {
      taskQueue,
      workflowId: messageWorkflowId(m.id),
      args: [{ messageId: m.id }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: `Send ${m.channel} message to lead ${m.lead_id}`,
      memo: { message_id: m.id, lead_id: m.lead_id, channel: m.channel, workspace_id: m.workspace_id },
      typedSearchAttributes: [{ key: WORKSPACE_ID, value: m.workspace_id }],
      // One workspace's burst waits behind its own tasks, not everyone's (task-queue fairness).
      priority: { fairnessKey: m.workspace_id },
    });
