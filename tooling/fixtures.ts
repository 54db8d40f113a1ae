import type { DataSource } from 'typeorm';
import { createApiKey } from '../domain/identity/operations/key-create';
import { addMember } from '../domain/identity/operations/member-add';
import { createWorkspace } from '../domain/identity/operations/workspace-create';
import { operatorActor } from '../domain/kernel/actor';
import type { CallContext } from '../domain/kernel/audit';
import type { Services } from '../domain/kernel/operation';
import type { Role, Scope } from '../domain/kernel/permissions';
import { runOperation } from '../domain/kernel/runner';
import { testServices } from './services';

export type WorkspaceFixture = {
  workspace: Awaited<ReturnType<typeof createWorkspace.run>>;
  email: string;
  /** The key record; `key.key` is the key itself, shown this once. */
  key: Awaited<ReturnType<typeof createApiKey.run>>;
};

/**
 * A workspace with one member holding a key, made through the registered operations as an operator
 * would: the one set-up the demo seed, the tests, the fuzzer and the benchmarks share.
 */
export async function makeWorkspace(
  db: DataSource,
  opts: {
    name: string;
    email: string;
    role?: Role;
    scopes: readonly Scope[];
    timezone?: string;
    industry?: string;
    keyName?: string;
    allowedCidrs?: string[];
    expiresInDays?: number;
    /** Dates the key as if made at this time (expiry tests). */
    now?: Date;
    ctx?: CallContext;
  },
): Promise<WorkspaceFixture> {
  const services: Services = testServices(db, { ...(opts.now ? { clock: () => opts.now! } : {}) });
  const actor = operatorActor(opts.ctx ?? { door: 'admin' });
  const workspace = await runOperation(services, createWorkspace, actor, {
    name: opts.name,
    timezone: opts.timezone,
    industry: opts.industry,
  });
  const workspaceId = workspace.id;
  await runOperation(
    services,
    addMember,
    actor,
    { email: opts.email, role: opts.role ?? 'admin' },
    { workspaceId },
  );
  const key = await runOperation(
    services,
    createApiKey,
    actor,
    {
      ownerEmail: opts.email,
      name: opts.keyName ?? `${opts.name} key`,
      scopes: [...opts.scopes],
      allowedCidrs: opts.allowedCidrs,
      expiresInDays: opts.expiresInDays,
    },
    { workspaceId },
  );
  return { workspace, email: opts.email, key };
}
