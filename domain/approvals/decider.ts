import type { Data } from '../kernel/data';
import type { Decision } from '../kernel/gate';
import { membersIn, workspaceNamed } from '../identity';
import type { Approval } from './entities';
import { deciderRefusal, type ApprovalPolicy, type DeciderRefusal } from './rules';

/** A workspace's approval policy, as it stands now. */
export async function policyOf(data: Data, workspaceId: string): Promise<ApprovalPolicy> {
  return { distinct: (await workspaceNamed(data, workspaceId))?.distinct_approver ?? false };
}

/**
 * Whether a person may make this decision on this request now, by the one rule (`deciderRefusal`):
 * who they are in its workspace (named by email as typed, or by user id for the approved run, which
 * asks again) and what the workspace requires. Read without a lock: a change of role or policy racing a
 * decision is caught by the approved run's own check.
 */
export async function decisionStanding(
  data: Data,
  row: Approval,
  who: { email: string } | { userId: string },
  decision: Decision['decision'],
): Promise<{ decider: { userId: string } | undefined; policy: ApprovalPolicy; refusal?: DeciderRefusal }> {
  const scoped = data.in(row.workspace_id);
  const members = membersIn(scoped);
  const decider =
    'email' in who
      ? await members.byEmail(who.email)
      : { userId: who.userId, role: await members.roleOf(who.userId) };
  const policy = await policyOf(scoped, row.workspace_id);
  return { decider, policy, refusal: deciderRefusal(decider, row, decision, policy) };
}
