import type { DataSource } from 'typeorm';
import { recordDecision } from '../domain/approvals';
import type { Gate } from '../domain/kernel/gate';
import type { Ports } from '../domain/kernel/operation';

/**
 * The approval gate as the operator's CLI uses it: where this process's own configuration does not take
 * an operator's word (production without APPROVALS_OPERATOR_DECIDE=true), `approval approve|reject --as`
 * is refused here, naming the setting, before any round trip to the worker. The refusal is the worker's
 * own: `recordDecision` with this process's setting, which with the setting off never records an
 * operator's decision (it refuses it naming the setting, or says the request no longer waits) and audits
 * the attempt, so the rule and its words stay in one place. With the setting on, the worker that records
 * the decision asks its own configuration again.
 */
const breakGlassGate = (ports: Ports & { db: DataSource }): Gate => ({
  ...ports.approvals,
  decide: (approvalId, decision) =>
    decision.via === 'operator' && !ports.operatorDecisions.allowed
      ? recordDecision(ports, approvalId, decision)
      : ports.approvals.decide(approvalId, decision),
});

/** The production ports, with the approval gate as the operator's CLI uses it (`breakGlassGate`). */
export const withBreakGlass = <P extends Ports & { db: DataSource }>(ports: P): P => ({
  ...ports,
  approvals: breakGlassGate(ports),
});
