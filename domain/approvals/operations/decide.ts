import * as yup from 'yup';
import { DomainError, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { defineOperation } from '../../kernel/operation';
import { approvalsIn } from '../repository/approvals';
import { DECIDE } from '../requirements';
import { APPROVAL, approvalId, signedAssertion, snapshotDigest } from '../schemas';

/**
 * approval.decide: a member approves or rejects a parked request in the workspace console, as
 * themselves, with a fresh passkey assertion. The console verifies the assertion (its challenge bound to
 * this request and `digest`, the passkey the member's) before it runs this, as REST checks a key before
 * it runs an operation; the decision's one rule then checks, under the request's lock, that `digest` is
 * the request's snapshot and that the member, by their live role, may decide it. The request's workflow
 * records the decision with the credential, the assertion and the digest, and runs it once approved.
 */
export const decideApproval = defineOperation({
  name: 'approval.decide',
  title: 'Decide a parked request as a member',
  description:
    "A member's decision on a request an assistant parked, signed with their passkey over the request's snapshot digest: approved, it runs once on their authority, and the answer says how it ended (EXECUTED with its result, or FAILED with the reason); rejected, it never runs. Refused when the digest is not the request's snapshot, or the member is not an admin or owner (or, to approve, owns the key that asked where the workspace requires a second person).",
  returns: 'The approval request as it ended.',
  requirement: DECIDE,
  reach: 'record',
  changes: true,
  inWorkflow: true,
  destructive: false,
  idempotent: false,
  gated: false,
  input: yup
    .object({
      id: describe(approvalId, 'The approval request id.'),
      decision: describe(
        yup
          .string()
          .required('decision is required')
          .oneOf(['approve', 'reject'] as const, 'decision must be approve or reject'),
        'approve or reject.',
      ),
      digest: snapshotDigest,
      credentialId: describe(
        yup
          .string()
          .required('credentialId is required')
          .max(1366, 'credentialId must be at most 1366 characters'),
        "The id of the passkey that signed (base64url), the assertion's own id.",
      ),
      assertion: signedAssertion,
      reason: describe(
        yup.string().trim().max(500, 'reason must be at most 500 characters'),
        'Why, for the record (and the assistant).',
      ),
    })
    .test('credential', 'credentialId must be the assertion’s id', (i) => i.credentialId === i.assertion?.id),
  output: APPROVAL,
  doors: { console: true },
  summary: (i) =>
    `${i.decision === 'approve' ? 'Approve' : 'Reject'} approval request ${i.id} with passkey ${i.credentialId}`,
  run: async (ctx, i) => {
    // Another workspace's request is not found, whoever asks (tenancy answers first).
    if (!(await approvalsIn(ctx.data).find(i.id))) throw notFound('approval request');
    // A decision signed by a member's passkey is a member's own: a key or the operator cannot make one.
    if (ctx.actor.type !== 'member')
      throw new DomainError('forbidden', 'forbidden', {}, 'approval.decide is a member’s signed decision');
    return ctx.services.approvals.decide(i.id, {
      decision: i.decision,
      reason: i.reason,
      door: ctx.actor.ctx.door,
      via: 'passkey',
      userId: ctx.actor.userId,
      credentialId: i.credentialId,
      assertion: i.assertion,
      digest: i.digest,
    });
  },
});
