import assert from 'node:assert/strict';
import type { DataSource } from 'typeorm';
import type * as yup from 'yup';
import { operatorActor } from '../../domain/kernel/actor';
import { DomainError } from '../../domain/kernel/errors';
import type { CallContext } from '../../domain/kernel/audit';
import type { Operation, Services } from '../../domain/kernel/operation';
import type { Role, Scope } from '../../domain/kernel/permissions';
import { runOperation, type RunOptions } from '../../domain/kernel/runner';
import { makeWorkspace } from '../../tooling/fixtures';
import { testServices } from '../../tooling/services';

export const operator: CallContext = { door: 'admin', requestId: 'test' };

let counter = 0;

/** A workspace with one member of the given role holding a key with the given scopes. */
export async function workspaceWithKey(
  db: DataSource,
  opts: { role?: Role; scopes?: Scope[]; allowedCidrs?: string[]; expiresInDays?: number; now?: Date } = {},
) {
  const n = ++counter;
  return makeWorkspace(db, {
    name: `Workspace ${n}`,
    timezone: 'Europe/Paris',
    email: `person${n}@example.com`,
    role: opts.role ?? 'admin',
    keyName: `key ${n}`,
    scopes: opts.scopes ?? ['business:read', 'leads:read', 'leads:write'],
    allowedCidrs: opts.allowedCidrs,
    expiresInDays: opts.expiresInDays,
    now: opts.now,
    ctx: operator,
  });
}

/** Runs a registered operation as the operator, the way the admin CLI does. */
export const asOperator = <S extends yup.AnyObjectSchema, O>(
  services: Services | DataSource,
  op: Operation<S, O>,
  input: Record<string, unknown>,
  opts: RunOptions = {},
) =>
  runOperation(
    'db' in services ? services : testServices(services),
    op,
    operatorActor(operator),
    input,
    opts,
  );

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** The domain refusal a call ends in; fails the test when it succeeds or fails some other way. */
export const refusal = async (work: Promise<unknown>): Promise<DomainError> => {
  try {
    await work;
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  assert.fail('expected a refusal');
};

/**
 * A time zone where it is about noon now (`Etc/GMT-3` is UTC+3), so work that may only happen in the
 * day (an agent's sending window) can be tested at any hour.
 */
export function zoneAtNoon(): string {
  let offset = 12 - new Date().getUTCHours();
  if (offset > 14) offset -= 24;
  if (offset < -12) offset += 24;
  return offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}
