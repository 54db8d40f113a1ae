import type { Data } from '../kernel/data';
import { memberByEmail, roleOf, workspaceNamed } from '../identity';
import type { Approval } from './entities';
import type { ApprovalPolicy, Standing } from './rules';

/** A workspace's approval policy, as it stands now. */
export async function policyOf(data: Data, workspaceId: string): Promise<ApprovalPolicy> {
  return { distinct: (await workspaceNamed(data, workspaceId))?.distinct_approver ?? false };
}

/**
 * Who a person is in the request's workspace (named by email as typed, or by user id for the approved
 * run, which asks again) and what the workspace requires of approvers, as they stand now, for the
 * one rule (`stepRefusal`, `deciderRefusal`).
 */
export async function standingOf(
  data: Data,
  row: Approval,
  who: { email: string } | { userId: string },
): Promise<Standing> {
  const scoped = data.in(row.workspace_id);
  const decider =
    'email' in who
      ? await memberByEmail(scoped, who.email)
      : { userId: who.userId, role: await roleOf(scoped, who.userId) };
  return { decider, policy: await policyOf(scoped, row.workspace_id) };
}
