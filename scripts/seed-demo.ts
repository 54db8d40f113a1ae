import type { DataSource } from 'typeorm';
import type { CallContext } from '../domain/audit';
import { createApiKey } from '../domain/operations/api-keys';
import { createWorkspace } from '../domain/operations/create-workspace';
import { addMember } from '../domain/operations/members';
import { SCOPES } from '../domain/policy';

const DEMO_NAME = 'Demo workspace';
const ADMIN_EMAIL = 'admin@demo.example';

/**
 * First run only: a demo workspace, an admin member and a key with every scope. Later runs find the
 * workspace and show no key (only its fingerprint was stored).
 */
export async function seedDemo(db: DataSource) {
  const ctx: CallContext = { door: 'admin' };
  const [existing] = await db.query<{ id: string; name: string }[]>(
    `SELECT id, name FROM workspaces WHERE name = $1 ORDER BY created_at LIMIT 1`,
    [DEMO_NAME],
  );
  if (existing) return { workspace: existing, adminEmail: ADMIN_EMAIL, key: undefined };
  const workspace = await createWorkspace(db, ctx, {
    name: DEMO_NAME,
    timezone: 'Europe/London',
    industry: 'demo',
  });
  await addMember(db, ctx, { workspaceId: workspace.id, email: ADMIN_EMAIL, role: 'admin' });
  const key = await createApiKey(db, ctx, {
    workspaceId: workspace.id,
    ownerEmail: ADMIN_EMAIL,
    name: 'Demo key (all scopes)',
    scopes: [...SCOPES],
  });
  return { workspace, adminEmail: ADMIN_EMAIL, key: key.key };
}
