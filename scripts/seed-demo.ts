import type { DataSource } from 'typeorm';
import { SCOPES } from '../domain/kernel/permissions';
import { makeWorkspace } from '../tooling/fixtures';

const DEMO_NAME = 'Demo workspace';
const ADMIN_EMAIL = 'admin@demo.example';

/**
 * First run only: a demo workspace, an admin member and a key with every scope. Later runs find the
 * workspace and show no key (only its fingerprint was stored).
 */
export async function seedDemo(db: DataSource) {
  const [existing] = await db.query<{ id: string; name: string }[]>(
    `SELECT id, name FROM workspaces WHERE name = $1 ORDER BY created_at LIMIT 1`,
    [DEMO_NAME],
  );
  if (existing) return { workspace: existing, adminEmail: ADMIN_EMAIL, key: undefined };
  const { workspace, key } = await makeWorkspace(db, {
    name: DEMO_NAME,
    timezone: 'Europe/London',
    industry: 'demo',
    email: ADMIN_EMAIL,
    keyName: 'Demo key (all scopes)',
    scopes: SCOPES,
  });
  return { workspace, adminEmail: ADMIN_EMAIL, key: key.key };
}
