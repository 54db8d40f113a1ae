import * as yup from 'yup';
import { notFound } from '../kernel/errors';
import { describe } from '../kernel/json-schema';
import { defineOperation } from '../kernel/operation';
import { emailSchema } from '../kernel/validate';
import { approvalsIn } from './repository/approvals';
import { DECIDE } from './requirements';
import { APPROVAL, approvalId } from './schemas';

/** An admin's or owner's decision, from the operator door; the request's workflow records and runs it. */
export const decisionOperation = (decision: 'approve' | 'reject') =>
  defineOperation({
    name: `approval.${decision}`,
    title: decision === 'approve' ? 'Approve a parked request' : 'Reject a parked request',
    description:
      decision === 'approve'
        ? 'Approves a request an assistant parked, on the authority of the admin or owner named: it runs once, and the answer says how it ended (EXECUTED with its result, or FAILED with the reason).'
        : 'Rejects a request an assistant parked, with a reason: it never runs.',
    returns: 'The approval request as it ended.',
    requirement: DECIDE,
    reach: 'record',
    operatorOnly: true,
    changes: true,
    inWorkflow: true,
    destructive: false,
    idempotent: false,
    gated: false,
    input: yup.object({
      id: describe(approvalId, 'The approval request id.'),
      as: describe(
        emailSchema.required('as is required: the email of the admin or owner deciding'),
        'The email of the admin or owner deciding.',
      ),
      reason: describe(
        yup.string().trim().max(500, 'reason must be at most 500 characters'),
        'Why, for the record (and the assistant).',
      ),
    }),
    output: APPROVAL,
    doors: {
      admin: {
        command: `approval ${decision}`,
        flags: (f) => ({ id: f.id, as: f.as, reason: f.reason }),
      },
    },
    summary: (i) => `${decision === 'approve' ? 'Approve' : 'Reject'} approval request ${i.id} as ${i.as}`,
    run: async (ctx, i) => {
      if (!(await approvalsIn(ctx.data).find(i.id))) throw notFound('approval request');
      return ctx.services.approvals.decide(i.id, { decision, approverEmail: i.as, reason: i.reason });
    },
  });
