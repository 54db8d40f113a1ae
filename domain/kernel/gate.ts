import type { Data } from './data';
import type { Principal } from './permissions';
import { dateTime, object, oneOf, string, uuid } from './shapes';

/** A key's call of a gated operation, as it is parked. */
export type GatedCall = {
  operation: string;
  input: Record<string, unknown>;
  /** The plain-language sentence an approver reads. */
  summary: string;
  workspaceId: string;
  principal: Principal;
};

/** What a parked call answers: nothing has happened yet; a person must approve. */
export type Parked = {
  status: 'pending_approval';
  approval_id: string;
  summary: string;
  expires_at: string;
  created_at: string;
  /** False when the same key asked the same thing while it waited: the same request, not a new one. */
  created: boolean;
};

/**
 * Where a key's gated call waits for a person (the approvals area provides it, on Temporal). `park`
 * records the request in the call's transaction and returns how to start its durable wait once that
 * has committed; `decide` hands a person's decision to the waiting request and answers how it ended;
 * `withdrawn` tells it that the key which parked it took it back.
 */
export type Gate = {
  park: (data: Data, call: GatedCall) => Promise<{ parked: Parked; start: () => Promise<void> }>;
  decide: (approvalId: string, decision: Decision) => Promise<unknown>;
  withdrawn: (approvalId: string) => Promise<void>;
};

/** A person's decision on a parked request, as the operator door hands it over. */
export type Decision = { decision: 'approve' | 'reject'; approverEmail: string; reason?: string };

/** What a gated tool answers when it parks (JSON Schema): nothing has happened yet. */
export const PARKED = object(
  { status: oneOf(['pending_approval']), approval_id: uuid, summary: string(), expires_at: dateTime },
  { title: 'PendingApproval' },
);
