import type { EntityManager } from 'typeorm';
import type { Actor } from './actor';
import { writeAudit } from './audit';
import { DomainError, invalid, notFound } from './errors';
import { emitEvent } from './events';
import { recallAnswer, rememberAnswer, requestHash } from './idempotency';
import type * as yup from 'yup';
import type { AnyOperation, Operation, OperationContext, Services } from './operation';
import { refusalReason } from './permissions';
import { validate } from './validate';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type RunOptions = {
  /** The workspace the operator names (`--workspace`); a key's workspace is always its own. */
  workspaceId?: string;
};

export type RunResult<O> = { output: O; replayed: boolean };

const forbidden = (reason: string) => new DomainError('forbidden', 'forbidden', {}, reason);

/** The key's scope AND its owner's live role; the operator may do anything. */
function authorise(op: AnyOperation, actor: Actor): void {
  if (actor.type === 'operator') return;
  if (op.operatorOnly) throw forbidden(`${op.name} is for the operator door only`);
  const reason = refusalReason(actor.principal, op.requirement);
  if (reason) throw forbidden(reason);
}

/** Tenancy by construction: a key acts in its own workspace only; only the operator names one. */
async function confine(
  m: Pick<EntityManager, 'query'>,
  op: AnyOperation,
  actor: Actor,
  named: string | undefined,
): Promise<string | undefined> {
  if (actor.type === 'key') {
    const own = actor.principal.workspaceId;
    if (named !== undefined && named !== own)
      throw forbidden(`key of workspace ${own} named workspace ${named}`);
    return own;
  }
  if (op.reach === 'none') return undefined;
  if (named === undefined && op.reach === 'record') return undefined;
  if (!named || !UUID.test(named)) throw invalid('workspace', 'workspace is required and must be a UUID');
  const rows: unknown[] = await m.query('SELECT 1 FROM workspaces WHERE id = $1', [named]);
  if (rows.length === 0) throw notFound('workspace');
  return named.toLowerCase();
}

/**
 * Runs any registered operation for any door: validates the input (400 naming the field),
 * authorises the actor, confines the call to the actor's workspace, and for a change opens the
 * transaction in which the operation, its events and its audit row all commit, or none do.
 * Effects registered with `afterCommit` run once the transaction has committed.
 */
export async function execute<S extends yup.AnyObjectSchema, O>(
  services: Services,
  op: Operation<S, O>,
  actor: Actor,
  raw: unknown,
  opts: RunOptions = {},
): Promise<RunResult<O>> {
  authorise(op, actor);
  const prepared = op.prepare ? op.prepare(raw) : raw;
  // JSON doors are strict (42 is not a string); the operator's flags arrive as text and are coerced.
  const input: yup.InferType<S> = validate(op.input, prepared, { strict: actor.ctx.door !== 'admin' });
  const { db } = services;

  if (!op.changes) {
    const workspaceId = await confine(db.manager, op, actor, opts.workspaceId);
    const ctx = context(db.manager, actor, workspaceId, services, { effects: [], audit: undefined });
    return { output: (await op.run(ctx, input)) as O, replayed: false };
  }

  const state: AuditState = { effects: [], audit: undefined };
  const result = await db.transaction(async (m) => {
    const workspaceId = await confine(m, op, actor, opts.workspaceId);
    const ctx = context(m, actor, workspaceId, services, state);
    // A key's repeated call is answered from its first answer; the request is fingerprinted on what the
    // caller sent, the key itself aside.
    const replay =
      op.idempotency && actor.type === 'key'
        ? {
            rule: op.idempotency,
            caller: actor.principal.keyId,
            key: op.idempotency.key(input),
            hash: requestHash(withoutKey(prepared)),
          }
        : undefined;
    if (replay) {
      const stored = await recallAnswer(m, replay.caller, replay.key, replay.hash);
      if (stored) return { output: stored.body as O, replayed: true };
    }
    const output = (await op.run(ctx, input)) as O;
    await writeAudit(m, {
      door: actor.ctx.door,
      action: op.name,
      outcome: 'allowed',
      workspaceId: state.audit?.workspaceId ?? workspaceId ?? null,
      keyId: actor.ctx.keyId,
      keyPrefix: actor.ctx.keyPrefix,
      actorUserId: actor.ctx.actorUserId,
      requestId: actor.ctx.requestId,
      clientIp: actor.ctx.clientIp,
      details: state.audit?.details ?? {},
    });
    if (replay?.rule.remember(output))
      await rememberAnswer(m, replay.caller, replay.key, replay.hash, output);
    return { output, replayed: false };
  });
  if (!result.replayed) for (const effect of state.effects) await effect();
  return result;
}

/** `execute` for doors that only need the answer. */
export const runOperation = async <S extends yup.AnyObjectSchema, O>(
  services: Services,
  op: Operation<S, O>,
  actor: Actor,
  raw: unknown,
  opts: RunOptions = {},
): Promise<O> => (await execute(services, op, actor, raw, opts)).output;

type AuditState = {
  effects: (() => Promise<void>)[];
  audit: { workspaceId: string | null; details: Record<string, unknown> } | undefined;
};

function context(
  m: EntityManager,
  actor: Actor,
  workspaceId: string | undefined,
  services: Services,
  state: AuditState,
): OperationContext {
  return {
    m,
    actor,
    workspaceId,
    services,
    emit: (ws, type, subject, data) => emitEvent(m, ws, type, subject, data),
    audit: (ws, details) => {
      state.audit = { workspaceId: ws, details };
    },
    afterCommit: (effect) => {
      state.effects.push(effect);
    },
  };
}

const withoutKey = (input: unknown): unknown => {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return input;
  return Object.fromEntries(Object.entries(input).filter(([k]) => k !== 'idempotency_key'));
};
