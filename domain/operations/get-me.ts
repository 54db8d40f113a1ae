import type { DataSource } from 'typeorm';
import { Workspace } from '../entities/workspace';
import { notFound } from '../errors';
import type { Principal } from './authenticate';

/** What GET /me shows: the workspace, the key, and the role the key acts with right now. */
export async function getMe(db: DataSource, p: Principal) {
  const w = await db.getRepository(Workspace).findOneBy({ id: p.workspaceId });
  if (!w) throw notFound('workspace');
  return {
    workspace: { id: w.id, name: w.name, timezone: w.timezone, industry: w.industry, status: w.status },
    key: { name: p.keyName, environment: p.environment, scopes: p.scopes },
    acting_as: { role: p.role },
  };
}
