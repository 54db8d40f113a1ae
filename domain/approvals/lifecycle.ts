import type { DataSource } from 'typeorm';
import { writeAudit } from '../kernel/audit';
import { Data } from '../kernel/data';
import { DomainError, notFound } from '../kernel/errors';
import type { AuthorityLoss, Decision, GatedCall, Parked } from '../kernel/gate';
import { roleRefusal, type Requirement } from '../kernel/permissions';
import type { Services } from '../kernel/operation';
import { requestHash } from '../kernel/idempotency';
import { snapshotDigests } from '../kernel/effect';
import type { Approval, ApprovalStatus } from './entities';
import { approvalsIn, type DecisionEvidence, type MoveFields } from './repository/approvals';
import { APPROVAL_TTL_DAYS, WITHDRAWN_BY_ASSISTANT, approvalView, type ApprovalView } from './views';
import { standingOf } from './decider';
import { canMove, requireMove, stepRefusal } from './rules';
import { tellDeciders, type WaitingMailPorts } from './waiting-mail';

/**
 * Records a key's gated call as a pending request with the snapshot of its effect, in the caller's
 * transaction. The same key asking the same operation with the same arguments on the same target while
 * one waits gets that one back (`created: false`); once the target changed, asking again parks a new
 * request (the old one is refused if approved: it no longer matches).
 */
async function parkRequest(data: Data, call: GatedCall): Promise<{ row: Approval; created: boolean }> {
  const approvals = approvalsIn(data);
  // The bound parts' digest and each member set's: asked again once the audience changed, the same
  // call parks a new request for the people it now reaches.
  const inputHash = requestHash({ input: call.input, ...snapshotDigests(call.snapshot) });
  const inserted = await approvals.park({
    operation: call.operation,
    input: call.input,
    inputHash,
    summary: call.summary,
    snapshot: call.snapshot,
    keyId: call.principal.keyId,
    userId: call.principal.userId,
    days: APPROVAL_TTL_DAYS,
  });
  if (inserted) return { row: inserted, created: true };
  const waiting = await approvals.waiting(call.principal.keyId, call.operation, inputHash);
  if (!waiting) throw new Error('approval request neither inserted nor found');
  return { row: waiting, created: false };
}

/**
 * Parks a key's gated call (`parkRequest`) and answers what the call answers (nothing has happened
 * yet; a person must approve; the runner adds the request's page), with the request whose wait starts
 * once the call commits. A new request is mailed to those who may approve it, in the same transaction
 * (`tellDeciders`); the same request asked again mails nobody again.
 */
export async function parkGatedCall(
  data: Data,
  call: GatedCall,
  ports: WaitingMailPorts,
): Promise<{ parked: Omit<Parked, 'approval_url'>; request: Approval }> {
  const { row, created } = await parkRequest(data, call);
  if (created) await tellDeciders(data, row, ports);
  return {
    parked: {
      status: 'pending_approval',
      approval_id: row.id,
      summary: row.summary,
      expires_at: row.expires_at.toISOString(),
      created_at: row.created_at.toISOString(),
      created,
    },
    request: row,
  };
}

/** The one place a request changes state: the rules allow the move, or it is refused saying why. */
export async function move(
  data: Data,
  row: Approval,
  to: ApprovalStatus,
  f: MoveFields = {},
): Promise<Approval> {
  requireMove(row.status, to);
  return approvalsIn(data).move(row.id, to, f);
}

export const lock = async (data: Data, approvalId: string) => {
  const row = await approvalsIn(data).find(approvalId, { lock: true });
  if (!row) throw new DomainError('not_found', 'No such approval request.', { field: 'id' });
  return row;
};

/** What a decision records of how it was made (the row's evidence columns, all five set or cleared). */
const evidenceOf = (d: Decision): DecisionEvidence =>
  d.via === 'passkey'
    ? {
        decided_via: 'passkey',
        decided_credential: d.credentialId,
        decided_assertion: d.assertion,
        decided_digest: d.digest,
        operator_asserted: null,
      }
    : {
        decided_via: 'operator',
        decided_credential: null,
        decided_assertion: null,
        decided_digest: null,
        operator_asserted: { os_user: d.osUser, host: d.host },
      };

/** How the audit rows of a decision say who made it and how (never the assertion itself: the row keeps it). */
const auditedAs = (d: Decision) =>
  d.via === 'passkey'
    ? { decided_via: 'passkey', credential_id: d.credentialId, digest: d.digest }
    : {
        decided_via: 'operator',
        as: d.approverEmail,
        operator_asserted: { os_user: d.osUser, host: d.host },
      };

/**
 * Records a person's decision. The request is locked once, and the step's one check (`stepRefusal`:
 * still waiting; the decision's proof holds, a passkey's over this request's snapshot or an operator's
 * word where the deployment takes it; the person a live admin or owner of its workspace and, to approve,
 * not the owner of the key that asked where the workspace requires a second person) is made on it. The
 * decision and how it was made are written in one statement. Audited on the approver's name, a refusal
 * of who they are or of the proof too (committed on its own, since nothing else is).
 */
export async function recordDecision(
  services: Pick<Services, 'db' | 'operatorDecisions'>,
  approvalId: string,
  d: Decision,
): Promise<ApprovalView> {
  const { db } = services;
  const action = `approval.${d.decision}`;
  type Outcome = { view: ApprovalView } | { refused: DomainError; row: Approval; userId: string | null };
  const decided = await db.transaction(async (m): Promise<Outcome> => {
    // Any workspace's request: the decision reaches it through the request's workflow, by its id.
    const data = new Data(m, undefined);
    const row = await lock(data, approvalId);
    const standing = await standingOf(
      data,
      row,
      d.via === 'operator' ? { email: d.approverEmail } : { userId: d.userId },
    );
    const refused = stepRefusal(
      row,
      { decide: d, operatorDecisions: services.operatorDecisions.allowed },
      standing,
    );
    // A request no longer waiting is answered as it is, with nothing recorded: nobody was refused.
    if (refused?.code === 'conflict') throw refused;
    if (refused) return { refused, row, userId: standing.decider?.userId ?? null };
    const to = d.decision === 'approve' ? 'APPROVED' : 'REJECTED';
    const moved = await approvalsIn(data).move(row.id, to, {
      decidedBy: standing.decider!.userId,
      evidence: evidenceOf(d),
      reason: d.reason,
    });
    await writeAudit(m, {
      door: d.door,
      action,
      outcome: 'allowed',
      workspaceId: row.workspace_id,
      actorUserId: standing.decider!.userId,
      details: { approval_id: approvalId, operation: row.operation, ...auditedAs(d) },
    });
    return { view: approvalView(moved) };
  });
  if ('view' in decided) return decided.view;
  const { refused, row, userId } = decided;
  await writeAudit(db.manager, {
    door: d.door,
    action,
    outcome: 'refused',
    reason: refused.auditReason ?? refused.message,
    status: 403,
    workspaceId: row.workspace_id,
    actorUserId: userId,
    details: { approval_id: approvalId, operation: row.operation, reason: refused.message, ...auditedAs(d) },
  });
  throw refused;
}

/** Ends a request nobody decided within its time; a later decision is refused with this status. */
export async function expireApproval(db: DataSource, approvalId: string): Promise<ApprovalView> {
  return db.transaction(async (m) => {
    const data = new Data(m, undefined);
    const row = await lock(data, approvalId);
    if (!canMove(row.status, 'EXPIRED')) return approvalView(row);
    return approvalView(await move(data, row, 'EXPIRED', { reason: 'Nobody decided within 7 days.' }));
  });
}

/**
 * Withdraws the waiting requests parked on authority just lost, in the transaction that takes it away:
 * every request of a revoked key or a removed member; for a demotion, those whose operation needs more
 * than the new role. Each ends CANCELLED with the loss as its reason; once that commits, their
 * workflows are told (the database already refuses a later decision). `requirementOf` is the
 * registry's, handed in where the areas are put together.
 */
export async function withdrawOnLostAuthority(
  data: Data,
  loss: AuthorityLoss,
  services: Services,
  requirementOf: (operation: string) => Requirement | undefined,
) {
  const scoped = data.in(loss.workspaceId);
  const rows = await approvalsIn(scoped).waitingOf({ keyId: loss.keyId, userId: loss.userId });
  const lost = rows.filter((r) => {
    if (loss.role === undefined || loss.role === null) return true;
    const need = requirementOf(r.operation);
    return !need || roleRefusal(loss.role, need.minRole) !== undefined;
  });
  for (const row of lost) await move(scoped, row, 'CANCELLED', { reason: loss.reason });
  const ids = lost.map((r) => r.id);
  return {
    audit: ids.length > 0 ? { withdrawn_approvals: ids } : {},
    afterCommit:
      ids.length > 0
        ? async () => {
            for (const id of ids) await services.approvals.withdrawn(id);
          }
        : undefined,
  };
}

/** Takes back a request the key parked: it never runs, and a later decision is refused. */
export async function withdrawApproval(data: Data, row: Approval): Promise<ApprovalView> {
  return approvalView(await move(data, row, 'CANCELLED', { reason: WITHDRAWN_BY_ASSISTANT }));
}

/**
 * A person's decision that no workflow took, because the request's has ended (expired, withdrawn,
 * decided) or is gone: refused saying where the request stands now, or not found. Returns only where
 * the record would still take the decision, so the caller's own failure stands.
 */
export async function refuseLateDecision(db: DataSource, approvalId: string, d: Decision): Promise<void> {
  const row = await approvalsIn(new Data(db.manager, undefined)).find(approvalId);
  if (!row) throw notFound('approval request');
  requireMove(row.status, d.decision === 'approve' ? 'APPROVED' : 'REJECTED');
}

/** A request as every door shows it, by id, in any workspace (the gate's workflow reads its own). */
export async function readApproval(db: DataSource, approvalId: string): Promise<ApprovalView> {
  const row = await approvalsIn(new Data(db.manager, undefined)).find(approvalId);
  if (!row) throw new Error(`approval ${approvalId} does not exist`);
  return approvalView(row);
}

/**
 * Pending requests of the last hour, past `graceMinutes`, whose workflow may never have started (any
 * workspace): the reconciler starts their waits.
 */
export const unstartedApprovals = (db: DataSource, graceMinutes: number, batch: number) =>
  approvalsIn(new Data(db.manager, undefined)).unstarted(graceMinutes, batch);
