import type { Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { MemberMailToStart } from '../../domain/identity';
import type { StartJob } from '../../domain/kernel/operation';
import { WORKSPACE_ID } from '../../domain/kernel/search-attributes';
import { memberMailWorkflow } from '../../workflows/member-mail';
import { startOnce } from './start-once';
import { memberMailWorkflowId } from './workflow-ids';

/**
 * Starts a member mail's workflow, `member-mail:<id>`. Its input, memo and summary name the mail and
 * its kind, never its address or text (a sign-in link is a bearer secret): the activity reads those.
 */
export const memberMailStarter =
  (client: Client, taskQueue: string): StartJob<MemberMailToStart> =>
  (m) =>
    startOnce(client, memberMailWorkflow, {
      taskQueue,
      workflowId: memberMailWorkflowId(m.id),
      args: [{ mailId: m.id }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: `Mail to a member: ${m.kind.replaceAll('_', ' ')}`,
      memo: { member_mail_id: m.id, kind: m.kind, ...(m.workspace_id && { workspace_id: m.workspace_id }) },
      ...(m.workspace_id && { typedSearchAttributes: [{ key: WORKSPACE_ID, value: m.workspace_id }] }),
    });
