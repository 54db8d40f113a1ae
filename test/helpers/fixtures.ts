import type { DataSource } from 'typeorm';
import type { CallContext } from '../../domain/audit';
import { createApiKey } from '../../domain/operations/api-keys';
import { createWorkspace } from '../../domain/operations/create-workspace';
import { addMember } from '../../domain/operations/members';
import type { Role, Scope } from '../../domain/policy';

export const operator: CallContext = { door: 'admin', requestId: 'test' };

let counter = 0;

/** A workspace with one member of the given role holding a key with the given scopes. */
export async function workspaceWithKey(
  db: DataSource,
  opts: { role?: Role; scopes?: Scope[]; allowedCidrs?: string[]; expiresInDays?: number; now?: Date } = {},
) {
  const n = ++counter;
  const workspace = await createWorkspace(db, operator, { name: `Workspace ${n}`, timezone: 'Europe/Paris' });
  const email = `person${n}@example.com`;
  await addMember(db, operator, { workspaceId: workspace.id, email, role: opts.role ?? 'admin' });
  const key = await createApiKey(
    db,
    operator,
    {
      workspaceId: workspace.id,
      ownerEmail: email,
      name: `key ${n}`,
      scopes: opts.scopes ?? ['business:read', 'leads:read', 'leads:write'],
      allowedCidrs: opts.allowedCidrs,
      expiresInDays: opts.expiresInDays,
    },
    opts.now,
  );
  return { workspace, email, key };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
