import type { DataSource } from 'typeorm';
import { createApiKey } from '../../domain/identity/operations/key-create';
import { addMember } from '../../domain/identity/operations/member-add';
import type { Scope } from '../../domain/kernel/permissions';
import { asBenchOperator } from './bench-database';
import { testServices } from '../../tooling/services';

const BENCH_MEMBER = 'bench@example.com';
const SCOPES: Scope[] = ['leads:read', 'leads:write', 'business:read', 'analytics:read'];

/** The member every bench key belongs to; created on the first run against a workspace. */
export async function ensureMember(db: DataSource, workspaceId: string): Promise<string> {
  const rows: unknown[] = await db.query(
    `SELECT 1 FROM memberships ms JOIN users u ON u.id = ms.user_id
      WHERE ms.workspace_id = $1 AND u.email = $2`,
    [workspaceId, BENCH_MEMBER],
  );
  if (rows.length === 0)
    await asBenchOperator(
      testServices(db),
      addMember,
      { email: BENCH_MEMBER, role: 'admin' },
      { workspaceId },
    );
  return BENCH_MEMBER;
}

/** Fresh keys through the real operation (a few ms each), a handful at a time. */
export async function createKeys(db: DataSource, workspaceId: string, count: number): Promise<string[]> {
  const stamp = new Date().toISOString();
  const keys: string[] = [];
  const worker = async () => {
    while (keys.length < count) {
      const i = keys.length;
      keys.push('');
      const created = await asBenchOperator(
        testServices(db),
        createApiKey,
        { ownerEmail: BENCH_MEMBER, name: `bench ${stamp} #${i}`, scopes: SCOPES, expiresInDays: 1 },
        { workspaceId },
      );
      keys[i] = created.key;
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return keys;
}

/** The header a request presents its key in. */
export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/**
 * Hands keys out round-robin, so concurrent requests spread over many rate-limit rows instead of
 * queueing on one key's counter, and no key is used more than ceil(issued / size) times in a run.
 */
export class KeyPool {
  private issued = 0;
  constructor(private readonly keys: string[]) {
    if (keys.length === 0) throw new Error('a key pool needs at least one key');
  }
  next(): string {
    return this.keys[this.issued++ % this.keys.length]!;
  }
  get size() {
    return this.keys.length;
  }
  get maxUsesPerKey() {
    return Math.ceil(this.issued / this.keys.length);
  }
}
