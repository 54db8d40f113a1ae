import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import * as yup from 'yup';
import { approvalWorkflowId, findApproval } from '../domain/approvals/rows';
import { DomainError } from '../domain/kernel/errors';
import { emailSchema, validate } from '../domain/kernel/validate';
import { decideUpdate } from '../workflows/approval';
import type { Flags } from './commands';

const flagsSchema = yup.object({
  id: yup.string().uuid('id must be a UUID').required('id is required'),
  as: emailSchema.required('as is required: the email of the admin or owner deciding'),
  reason: yup.string().trim().max(500, 'reason must be at most 500 characters').optional(),
});

/**
 * Sends a person's decision to the request's workflow as an Update and answers its outcome: the
 * request EXECUTED (with the operation's result) or FAILED (with the reason), or REJECTED. A decision
 * the workflow refuses (not an admin, already decided, expired) is an error that says why.
 */
export async function decide(db: DataSource, client: Client, decision: 'approve' | 'reject', f: Flags) {
  const { id, as, reason } = validate(flagsSchema, { id: f.id, as: f.as, reason: f.reason });
  const current = () => findApproval(db, id);
  const before = await current();
  if (!before) throw new DomainError('not_found', 'No such approval request.', { field: 'id' });
  if (before.status !== 'PENDING')
    throw new DomainError(
      'conflict',
      `This request is no longer waiting for a decision: it is ${before.status}.`,
    );
  try {
    return await client.workflow
      .getHandle(approvalWorkflowId(id))
      .executeUpdate(decideUpdate, { args: [{ decision, approverEmail: as, reason }] });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) {
      // The activity's refusal, as the workflow passed it on.
      let cause: unknown = err.cause;
      while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
      throw new DomainError('forbidden', cause instanceof Error ? cause.message : err.message);
    }
    // The workflow ended while we asked (it expired): say what the request is now.
    const now = await current();
    if (now && now.status !== 'PENDING')
      throw new DomainError(
        'conflict',
        `This request is no longer waiting for a decision: it is ${now.status}.`,
      );
    throw err;
  }
}
