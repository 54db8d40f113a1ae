import type { AuditDoor } from './audit';
import type { Data } from './data';
import type { Snapshot } from './effect';
import type { AnyOperation, OperationContext, Services } from './operation';
import type { Principal, Role } from './permissions';
import { dateTime, object, oneOf, string, uuid } from './shapes';

/**
 * The gate, as the assistant is told of it: written once here, for every gated tool's description
 * (`gateNotice`) and the assistant's instructions (`GATE_INSTRUCTIONS`). Operations' own descriptions
 * say what they do, not that they wait.
 */
const PARKS =
  'parks a request that a person (an admin of the workspace) must approve, and answers with an approval_id to follow with approval.get (or withdraw with approval.cancel). A client that declares the tasks extension gets a task instead, whose result is what this tool answers once approved.';

/** What a key's call of a gated operation does: every call, or (an operation that decides per call) those that widen. */
export const gateNotice = (op: Pick<AnyOperation, 'gated' | 'gatedWhen'>): string =>
  !op.gated
    ? ''
    : `${op.gatedWhen ? ' A call that needs approval' : ' Calling it'} does not do it: it ${PARKS} The person approves what the target is when you ask: if it changes before they decide, the approved call is refused and nothing happens.`;

/** The gate in the assistant's instructions, naming the gated tools. */
export const gateInstructions = (gated: readonly string[]): string =>
  `A call of a gated tool (${gated.join(', ')}) does nothing at once: it ${PARKS}`;

/** A key's call of a gated operation, as it is parked. */
export type GatedCall = {
  operation: string;
  input: Record<string, unknown>;
  /** The plain-language sentence an approver reads. */
  summary: string;
  /** What the call will do, as the approver sees it; the approved run must find the same. */
  snapshot: Snapshot;
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
  /**
   * The request's page in the workspace console, where a member who may decide reads it and approves or
   * rejects it with their passkey; the link grants nothing without signing in.
   */
  approval_url: string;
};

/** The console's page of a parked request: `${PUBLIC_URL}/app/w/<workspace>/approvals/<id>`. */
export const approvalPage = (publicUrl: string, workspaceId: string, approvalId: string): string =>
  `${publicUrl.replace(/\/+$/, '')}/app/w/${workspaceId}/approvals/${approvalId}`;

/**
 * Where a key's gated call waits for a person (the approvals area provides it, on Temporal). `park`
 * records the request in the call's transaction and returns how to start its durable wait once that
 * has committed; `decide` hands a person's decision to the waiting request and answers how it ended;
 * `withdrawn` tells it that the key which parked it took it back.
 */
export type Gate = {
  park: (
    data: Data,
    call: GatedCall,
  ) => Promise<{ parked: Omit<Parked, 'approval_url'>; start: () => Promise<void> }>;
  decide: (approvalId: string, decision: Decision) => Promise<unknown>;
  withdrawn: (approvalId: string) => Promise<void>;
};

/**
 * Someone's authority shrank: a key revoked, a member demoted or removed. Work parked on that
 * authority (approval requests) is withdrawn in the same transaction; `role` is the member's new role
 * (null once removed), absent when only keys lost it.
 */
export type AuthorityLoss = {
  workspaceId: string;
  reason: string;
  keyId?: string;
  userId?: string;
  role?: Role | null;
};

/**
 * Whoever holds work on someone's authority, told in the transaction that takes it away; answers what
 * its audit row should add (the requests withdrawn) and what to do once it commits (tell the waiting
 * workflows). The approvals area provides it; identity calls it through the kernel, so identity
 * imports no approvals code.
 */
export type AuthorityListener = (
  data: Data,
  loss: AuthorityLoss,
  services: Services,
) => Promise<{ audit: Record<string, unknown>; afterCommit?: () => Promise<void> }>;

const authorityListeners: AuthorityListener[] = [];

/** Wired once by the registry, which puts the areas together. */
export function onAuthorityLost(listener: AuthorityListener): void {
  if (!authorityListeners.includes(listener)) authorityListeners.push(listener);
}

/**
 * Tells every listener, in the caller's transaction, registers their after-commit work and answers
 * what the caller's audit row adds. With no listener wired the loss would be silently ignored: that is
 * a wiring fault, so it throws.
 */
export async function authorityLost(
  ctx: Pick<OperationContext, 'services' | 'afterCommit'>,
  data: Data,
  loss: AuthorityLoss,
): Promise<Record<string, unknown>> {
  if (authorityListeners.length === 0)
    throw new Error(
      'no listener is wired for lost authority (services come from composeServices in domain/registry.ts)',
    );
  let audit: Record<string, unknown> = {};
  for (const listen of authorityListeners) {
    const told = await listen(data, loss, ctx.services);
    audit = { ...audit, ...told.audit };
    if (told.afterCommit) ctx.afterCommit(told.afterCommit);
  }
  return audit;
}

let operationLookup: ((name: string) => AnyOperation | undefined) | undefined;

/** Wired once by the registry: the gate shows and checks parked calls of any registered operation. */
export function registerOperations(lookup: (name: string) => AnyOperation | undefined): void {
  operationLookup = lookup;
}

/** The registered operation a parked request names (undefined once it no longer exists). */
export function parkedOperation(name: string): AnyOperation | undefined {
  if (!operationLookup)
    throw new Error(
      'no operations are registered (services come from composeServices in domain/registry.ts)',
    );
  return operationLookup(name);
}

/**
 * Who decided, and what proves it:
 * - `passkey`: a member in the workspace console, who signed the decision with their passkey. The
 *   console verified the assertion (its challenge bound to this request and `digest`) before handing it
 *   over; `assertion` is the signed WebAuthn assertion as the browser sent it, kept as the evidence, and
 *   `digest` the snapshot digest the member was shown, which must be the request's.
 * - `operator`: an operator at the admin CLI deciding in an admin's or owner's name (break-glass). Nothing
 *   proves the named person decided: the operating system user and host that sent it are recorded, and
 *   the decision is shown as operator-asserted everywhere.
 */
type DecidedBy =
  | {
      via: 'passkey';
      userId: string;
      credentialId: string;
      assertion: Record<string, unknown>;
      digest: string;
    }
  | { via: 'operator'; approverEmail: string; osUser: string; host: string };

/**
 * A person's decision on a parked request, as a door hands it over; `door` is the one it came through,
 * which its audit rows name.
 */
export type Decision = {
  decision: 'approve' | 'reject';
  reason?: string;
  door: AuditDoor;
} & DecidedBy;

/** What a gated tool answers when it parks (JSON Schema): nothing has happened yet. */
export const PARKED = object(
  {
    status: oneOf(['pending_approval']),
    approval_id: uuid,
    summary: string(),
    expires_at: dateTime,
    approval_url: string({
      format: 'uri',
      description:
        'The request in the workspace console, where an admin or owner signs in to approve or reject it: hand it to your user.',
    }),
  },
  { title: 'PendingApproval' },
);
