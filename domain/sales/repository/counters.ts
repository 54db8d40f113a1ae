import type { Data } from '../../kernel/data';
import type { CounterKind } from '../entities';

/** How numbers print: Q-000042, INV-000042. */
const PREFIX: Record<CounterKind, string> = { quote: 'Q', invoice: 'INV' };

/**
 * The next number of a kind in the workspace. SQL: an upsert that locks the counter row until the
 * transaction ends: concurrent callers wait their turn, and a rollback gives the number back, so
 * the numbers that exist have no gaps.
 */
export async function nextNumber(data: Data, kind: CounterKind): Promise<string> {
  const [{ last }] = await data.sql<[{ last: number }]>(
    `INSERT INTO document_counters (workspace_id, kind, last) VALUES ($1, $2, 1)
     ON CONFLICT (workspace_id, kind) DO UPDATE SET last = document_counters.last + 1 RETURNING last`,
    [data.workspaceId, kind],
  );
  return `${PREFIX[kind]}-${String(last).padStart(6, '0')}`;
}
