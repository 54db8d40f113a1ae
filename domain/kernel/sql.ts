import type { EntityManager } from 'typeorm';

/**
 * Rows of an UPDATE or DELETE ... RETURNING. TypeORM's postgres driver answers those with
 * `[rows, affectedCount]` instead of the rows that SELECT and INSERT give.
 */
export async function returning<T>(
  m: Pick<EntityManager, 'query'>,
  sql: string,
  params: unknown[],
): Promise<T[]> {
  const [rows] = await m.query<[T[], number]>(sql, params);
  return rows;
}

/** The one row an UPDATE ... RETURNING must have changed (the caller holds it locked). */
export async function returningOne<T>(
  m: Pick<EntityManager, 'query'>,
  sql: string,
  params: unknown[],
): Promise<T> {
  const [row] = await returning<T>(m, sql, params);
  if (!row) throw new Error('expected one row to be updated, found none');
  return row;
}
