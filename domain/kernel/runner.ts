import type { EntityManager } from 'typeorm';
import type * as yup from 'yup';
import { ownWorkspace, type Actor } from './actor';
import { Data, nameOf, preparedQuery } from './data';
import { auditInsertInto, writeAudit, type AuditOutcome } from './audit';
import { changedParts, changedSinceApproval, snapshotOf, type Snapshot } from './effect';
import { DomainError, invalid, notFound } from './errors';
import { emitEvent, eventClauses, prepareEvent, relayWakeUp, type PendingEvent } from './events';
import { approvalPage, type Parked } from './gate';
import { recallAnswer, rememberAnswerInsert, requestHash } from './idempotency';
import {
  closedInput,
  type AnyOperation,
  type Operation,
  type OperationContext,
  type Services,
} from './operation';
import { refusalReason, roleRefusal } from './permissions';
import { inSpan } from './tracing';
import { areaWiring } from './wiring';
import { UUID_PATTERN, validate } from './validate';

export type RunOptions = {
  /** The workspace the operator names (`--workspace`); a key's or a member's is always their own. */
  workspaceId?: string;
  /**
   * Done first in the change's transaction, before the operation runs (an approved request locks itself
   * and checks that its requester still holds the authority it asked with).
   */
  firstInTransaction?: (m: EntityManager) => Promise<void>;
  /** Also done in the change's transaction (an approved request marks itself executed with the change). */
  alsoInTransaction?: (m: EntityManager, output: unknown) => Promise<void>;
  /**
   * The effect a person approved: the operation's effect is read again under the run's lock and any
   * bound part that differs refuses the run (`conflict`, naming the parts), so nothing changed runs.
   */
  approved?: Snapshot;
  /** Added to the operation's audit details (an approved execution names the original requester). */
  auditDetails?: Record<string, unknown>;
};

/**
 * An answer: the output, whether it was replayed from the first answer for the same idempotency key,
 * and the refusal it stands for when the operation declares one (its work committed all the same).
 */
export type RunResult<O> = { output: O; replayed: boolean; refusal?: DomainError };

const forbidden = (reason: string) => new DomainError('forbidden', 'forbidden', {}, reason);

/**
 * The key's scope AND its owner's live role; a member's live role (an operator-only operation only
 * where the console offers it); an agent's scopes, never a change
 * to agents (agents cannot configure agents, whatever door or tool list led there) and never a gated
 * action (no person approved it); the operator may do anything. Every run asks it first; a door that
 * refuses a caller before it parses anything (REST) asks this same rule.
 */
export function authorise(op: AnyOperation, actor: Actor): void {
  if (actor.type === 'operator') return;
  // The console is where a workspace's members run its settings, on their own live role.
  if (op.operatorOnly && !(actor.type === 'member' && op.doors.console))
    throw forbidden(`${op.name} is for the operator door only`);
  const reason =
    actor.type === 'key'
      ? refusalReason(actor.principal, op.requirement)
      : actor.type === 'agent'
        ? agentRefusal(op, actor.scopes)
        : roleRefusal(actor.role, op.requirement.minRole);
  if (reason) throw forbidden(reason);
}

function agentRefusal(op: AnyOperation, scopes: readonly string[]): string | undefined {
  if (op.requirement.scope === 'agents:write')
    return `an agent may not run ${op.name}: agents cannot configure agents`;
  if (op.gated) return `an agent may not run ${op.name}: it waits for a person's approval`;
  if (op.requirement.scope !== 'any' && !scopes.includes(op.requirement.scope))
    return `an agent's run lacks scope ${op.requirement.scope}`;
  return undefined;
}

/** An agent's refused call is audited here: its run has no door of its own to do it. */
async function auditAgentRefusal(services: Services, op: AnyOperation, actor: Actor, err: unknown) {
  if (actor.type !== 'agent' || !(err instanceof DomainError)) return;
  await writeAudit(services.db.manager, {
    ...auditRecord(actor, op.name, 'refused', actor.workspaceId, {}),
    reason: err.auditReason ?? err.message,
    status: err.code === 'forbidden' ? 403 : 400,
  });
}

/** Tenancy by construction: keys and members act in their own workspace only; only the operator names one. */
async function confine(
  m: EntityManager,
  op: AnyOperation,
  actor: Actor,
  named: string | undefined,
): Promise<string | undefined> {
  if (actor.type !== 'operator') {
    const own = ownWorkspace(actor)!;
    if (named !== undefined && named !== own)
      throw forbidden(`an actor of workspace ${own} named workspace ${named}`);
    return own;
  }
  if (op.reach === 'none') return undefined;
  if (named === undefined && op.reach === 'record') return undefined;
  if (!named || !UUID_PATTERN.test(named))
    throw invalid('workspace', 'workspace is required and must be a UUID');
  if (!(await areaWiring().workspaceExists(m, named))) throw notFound('workspace');
  return named.toLowerCase();
}

/** `admit`, with an agent's refusal audited. */
async function admitted<S extends yup.AnyObjectSchema, O>(
  services: Services,
  op: Operation<S, O>,
  actor: Actor,
  raw: unknown,
) {
  try {
    return admit(op, actor, raw);
  } catch (err) {
    await auditAgentRefusal(services, op, actor, err);
    throw err;
  }
}

/** Authorises, then validates: a caller without the permission learns nothing about the input. */
function admit<S extends yup.AnyObjectSchema, O>(op: Operation<S, O>, actor: Actor, raw: unknown) {
  authorise(op, actor);
  const prepared = op.prepare ? op.prepare(raw) : raw;
  // JSON doors are strict (42 is not a string); the operator's flags arrive as text and are coerced.
  const input = validate(closedInput(op), prepared, {
    strict: actor.ctx.door !== 'admin',
  }) as yup.InferType<S>;
  return { input, prepared };
}

/**
 * Runs any registered operation for any door: authorises the actor, validates the input (400 naming
 * the field), confines the call to the actor's workspace, and for a change opens the transaction in
 * which the operation, its events and its audit row all commit, or none do. Effects registered with
 * `afterCommit` run once the transaction has committed. A key's call of a gated operation is refused
 * here (`needs_confirmation`); doors that can park it use `executeOrPark`.
 */
export function execute<S extends yup.AnyObjectSchema, O>(
  services: Services,
  op: Operation<S, O>,
  actor: Actor,
  raw: unknown,
  opts: RunOptions = {},
): Promise<RunResult<O>> {
  return traced(op, actor, () => executeUntraced(services, op, actor, raw, opts));
}

/**
 * An operation's span, whatever the door: a child of the request's (REST, MCP), of the admin CLI's
 * root, or of the activity that runs an approved request. Its outcome is an attribute: a refusal is an
 * answer, not a fault.
 */
function traced<R extends RunResult<unknown> | { parked: Parked }>(
  op: AnyOperation,
  actor: Actor,
  run: () => Promise<R>,
): Promise<R> {
  return inSpan(
    `operation ${op.name}`,
    { attributes: { 'operation.name': op.name, 'operation.door': actor.ctx.door } },
    async (span) => {
      const result = await run();
      span.setAttribute(
        'operation.outcome',
        'parked' in result ? 'parked' : result.refusal ? 'refused' : 'allowed',
      );
      return result;
    },
  );
}

async function executeUntraced<S extends yup.AnyObjectSchema, O>(
  services: Services,
  op: Operation<S, O>,
  actor: Actor,
  raw: unknown,
  opts: RunOptions,
): Promise<RunResult<O>> {
  const { input, prepared } = await admitted(services, op, actor, raw);
  if (gatedKey(op, actor)) {
    const workspaceId = await confine(services.db.manager, op, actor, opts.workspaceId);
    const look = new Data(services.db.manager, workspaceId);
    if (await waitsForApproval(op, actor, input, look, false)) {
      await op.precondition?.(input, look);
      const effect = await op.effect?.(input, look, { lock: false, count: true });
      throw new DomainError(
        'needs_confirmation',
        'A person must approve this, so it cannot be done through this door; nothing has happened.',
        { effect: await op.summary(input, look, effect) },
        `${op.name} is gated`,
      );
    }
  }
  return perform(services, op, actor, input, prepared, opts);
}

/**
 * The key whose call may wait for a person, or undefined: only a key's call of a gated operation can
 * (an agent is refused a gated operation outright; a member, the operator and an approved run act on
 * their own authority). Every path asks this, and `waitsForApproval` builds on it: one rule.
 */
const gatedKey = (op: AnyOperation, actor: Actor): Extract<Actor, { type: 'key' }> | undefined =>
  op.gated && actor.type === 'key' ? actor : undefined;

/**
 * Whether the call waits for a person: the one rule every door's path asks. A gated call waits always,
 * unless the operation decides per call (`gatedWhen`, read under the record's lock when `lock`).
 */
const waitsForApproval = async <S extends yup.AnyObjectSchema, O>(
  op: Operation<S, O>,
  actor: Actor,
  input: yup.InferType<S>,
  data: Data,
  lock: boolean,
): Promise<boolean> =>
  !!gatedKey(op, actor) && (!op.gatedWhen || (await op.gatedWhen(input, data, { lock })));

/** `execute` for doors that only need the answer; an answer that is a refusal is thrown. */
export async function runOperation<S extends yup.AnyObjectSchema, O>(
  services: Services,
  op: Operation<S, O>,
  actor: Actor,
  raw: unknown,
  opts: RunOptions = {},
): Promise<O> {
  const result = await execute(services, op, actor, raw, opts);
  if (result.refusal) throw result.refusal;
  return result.output;
}

/**
 * For the assistant door: a key's call of a gated operation does not run. It is parked as an
 * approval request (a Temporal workflow waits for a person) and the call answers what was parked.
 */
export function executeOrPark<S extends yup.AnyObjectSchema, O>(
  services: Services,
  op: Operation<S, O>,
  actor: Actor,
  raw: unknown,
  opts: RunOptions = {},
): Promise<RunResult<O> | { parked: Parked }> {
  return traced(op, actor, () => executeOrParkUntraced(services, op, actor, raw, opts));
}

async function executeOrParkUntraced<S extends yup.AnyObjectSchema, O>(
  services: Services,
  op: Operation<S, O>,
  actor: Actor,
  raw: unknown,
  opts: RunOptions,
): Promise<RunResult<O> | { parked: Parked }> {
  const { input, prepared } = await admitted(services, op, actor, raw);
  const key = gatedKey(op, actor);
  if (!key) return perform(services, op, actor, input, prepared, opts);
  const gate = services.approvals;
  const parkedOrNot = await services.db.transaction(async (m) => {
    const workspaceId = (await confine(m, op, actor, opts.workspaceId))!;
    const data = new Data(m, workspaceId);
    // Decided under the record's lock; the call that does not wait runs in a transaction of its own,
    // which decides again under the lock (perform), so a change in between cannot slip past.
    if (!(await waitsForApproval(op, actor, input, data, true))) return undefined;
    await op.precondition?.(input, data);
    if (!op.effect) throw new Error(`${op.name} is gated but declares no effect to snapshot`);
    // Read under the record's lock: what the approver is shown is what stood when the call parked.
    const effect = await op.effect(input, data, { lock: true, count: true });
    const summary = await op.summary(input, data, effect);
    const result = await gate.park(data, {
      operation: op.name,
      input,
      summary,
      snapshot: snapshotOf(effect),
      workspaceId,
      principal: key.principal,
    });
    await writeAudit(
      m,
      auditRecord(actor, op.name, 'parked', workspaceId, {
        approval_id: result.parked.approval_id,
        summary,
        new_request: result.parked.created,
      }),
    );
    return result;
  });
  if (!parkedOrNot) return perform(services, op, actor, input, prepared, opts);
  const { parked, start } = parkedOrNot;
  // Started after commit; starting an existing request's wait again is refused by Temporal, harmlessly.
  await start();
  // Where a person who may decide reads it and decides: its page in the console, on the public URL.
  const page = approvalPage(services.publicUrl, key.principal.workspaceId, parked.approval_id);
  return { parked: { ...parked, approval_url: page } };
}

async function perform<S extends yup.AnyObjectSchema, O>(
  services: Services,
  op: Operation<S, O>,
  actor: Actor,
  input: yup.InferType<S>,
  prepared: unknown,
  opts: RunOptions,
): Promise<RunResult<O>> {
  const { db } = services;
  // A read, or a change a workflow or the operation's steps make in their own transactions: nothing to
  // wrap here.
  if (!op.changes || op.inWorkflow || op.steps) {
    const workspaceId = await confine(db.manager, op, actor, opts.workspaceId);
    const ctx = context(db.manager, actor, workspaceId, services, { effects: [], audit: undefined });
    return answer(op, await op.run(ctx, input), false);
  }

  const state: AuditState = { effects: [], audit: undefined };
  const result = await db.transaction(async (m) => {
    const events: PendingEvent[] = (state.events = []);
    const workspaceId = await confine(m, op, actor, opts.workspaceId);
    const ctx = context(m, actor, workspaceId, services, state);
    // A key's repeated call is answered from its first answer; the request is fingerprinted on what the
    // caller sent, the key itself aside.
    const replay =
      op.idempotency && actor.type === 'key'
        ? {
            rule: op.idempotency,
            caller: actor.principal.keyId,
            key: String((input as Record<string, unknown>)[op.idempotency.field]),
            hash: requestHash(withoutKey(prepared, op.idempotency.field)),
          }
        : undefined;
    if (replay) {
      const stored = await recallAnswer(m, replay.caller, replay.key, replay.hash, replay.rule.field);
      if (stored) return { output: stored.body as O, replayed: true };
    }
    await opts.firstInTransaction?.(m);
    // A key's call that did not wait for approval: decided again under the record's lock, so an edit
    // made since (a running agent set to draft by someone else) cannot turn it into a widening.
    if (op.gatedWhen && (await waitsForApproval(op, actor, input, ctx.data, true)))
      throw new DomainError(
        'conflict',
        `The record changed while ${op.name} was called: this call now needs a person's approval. Nothing was done; call it again to ask for approval.`,
      );
    if (opts.approved) {
      if (!op.effect) throw new Error(`${op.name} ran as approved but declares no effect to check`);
      // Under the lock the run itself takes (the same row, held to commit): no edit slips between.
      const now = await op.effect(input, ctx.data, { lock: true, count: false });
      const changed = changedParts(opts.approved, now);
      if (changed.length > 0) throw changedSinceApproval(changed);
      ctx.approved = opts.approved;
    }
    const output = await op.run(ctx, input);
    await opts.alsoInTransaction?.(m, output);
    // The change's last writes, in one statement: its events, its audit row and, for a key's
    // idempotent call, the answer a retry will get.
    const params: unknown[] = [];
    const audit = auditRecord(actor, op.name, 'allowed', state.audit?.workspaceId ?? workspaceId ?? null, {
      ...state.audit?.details,
      ...opts.auditDetails,
    });
    const clauses = [
      ...(events.length > 0 ? eventClauses(events, params, areaWiring().fanOut) : []),
      `audited AS (${auditInsertInto([audit], params)})`,
      ...(replay?.rule.remember(output)
        ? [`remembered AS (${rememberAnswerInsert(replay.caller, replay.key, replay.hash, output, params)})`]
        : []),
    ];
    const tail = `WITH ${clauses.join(', ')} ${events.length > 0 ? relayWakeUp(params, areaWiring().fanOut) : 'SELECT 1'}`;
    await preparedQuery(m, nameOf(tail), tail, params);
    return { output, replayed: false };
  });
  if (!result.replayed) for (const effect of state.effects) await effect();
  return answer(op, result.output, result.replayed);
}

const answer = <S extends yup.AnyObjectSchema, O>(
  op: Operation<S, O>,
  output: O,
  replayed: boolean,
): RunResult<O> => {
  const refusal = op.refusal?.(output);
  return refusal ? { output, replayed, refusal } : { output, replayed };
};

const auditRecord = (
  actor: Actor,
  action: string,
  outcome: AuditOutcome,
  workspaceId: string | null,
  details: Record<string, unknown>,
) => ({
  door: actor.ctx.door,
  action,
  outcome,
  workspaceId,
  keyId: actor.ctx.keyId,
  keyPrefix: actor.ctx.keyPrefix,
  actorUserId: actor.ctx.actorUserId,
  clientId: actor.ctx.clientId,
  requestId: actor.ctx.requestId,
  clientIp: actor.ctx.clientIp,
  details: actor.type === 'agent' ? { ...details, agent_id: actor.agentId } : details,
});

type AuditState = {
  effects: (() => Promise<void>)[];
  audit: { workspaceId: string | null; details: Record<string, unknown> } | undefined;
  /** In a change's transaction, events wait here and are appended together before it commits. */
  events?: PendingEvent[];
};

function context(
  m: EntityManager,
  actor: Actor,
  workspaceId: string | undefined,
  services: Services,
  state: AuditState,
): OperationContext {
  return {
    data: new Data(m, workspaceId),
    actor,
    workspaceId,
    services,
    emit: async (ws, type, subject, data) => {
      if (!state.events) return emitEvent(m, areaWiring().fanOut, ws, type, subject, data);
      const event = prepareEvent(ws, type, subject, data);
      state.events.push(event);
      return event.id;
    },
    audit: (ws, details) => {
      state.audit = { workspaceId: ws, details };
    },
    afterCommit: (effect) => {
      state.effects.push(effect);
    },
  };
}

const withoutKey = (input: unknown, field: string): unknown => {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return input;
  return Object.fromEntries(Object.entries(input).filter(([k]) => k !== field));
};
