import * as yup from 'yup';
import { notFound } from '../kernel/errors';
import { describe } from '../kernel/json-schema';
import { defineOperation } from '../kernel/operation';
import { emailSchema } from '../kernel/validate';
import { approvalsIn } from './repository/approvals';
import { DECIDE } from './requirements';
import { APPROVAL, approvalId } from './schemas';

/**
 * An operator's decision at the admin CLI, in the name of the admin or owner named (break-glass):
 * recorded as operator-asserted, with the operating system user and host that sent it, and refused
 * where the deployment does not take an operator's word (production without APPROVALS_OPERATOR_DECIDE).
 * Members decide in the console with their passkey (`approval.decide`). The request's workflow records
 * and runs it.
 */
export const decisionOperation = (decision: 'approve' | 'reject') =>
  defineOperation({
    name: `approval.${decision}`,
    title: decision === 'approve' ? 'Approve a parked request' : 'Reject a parked request',
    description:
      decision === 'approve'
        ? "An operator's break-glass: approves a request an assistant parked, in the name of the admin or owner named, on their authority: it runs once, and the answer says how it ended (EXECUTED with its result, or FAILED with the reason). Recorded as operator-asserted, with the operating system user and host; refused in production unless APPROVALS_OPERATOR_DECIDE=true."
        : "An operator's break-glass: rejects a request an assistant parked, in the name of the admin or owner named, with a reason: it never runs. Recorded as operator-asserted, with the operating system user and host; refused in production unless APPROVALS_OPERATOR_DECIDE=true.",
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
      const { osUser, host } = ctx.services.operatorDecisions;
      return ctx.services.approvals.decide(i.id, {
        decision,
        reason: i.reason,
        door: ctx.actor.ctx.door,
        via: 'operator',
        approverEmail: i.as,
        osUser,
        host,
      });
    },
  });
