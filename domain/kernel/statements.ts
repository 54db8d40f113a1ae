import { FindOperator, type EntityMetadata, type ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';

/**
 * The statements a workspace-scoped repository sends for plain reads and changes, written from
 * TypeORM's own metadata of the entity (its table, columns, and the driver's conversion of each
 * value both ways). Why not TypeORM's query builder: measured on the intake, it cost about 0.3 ms of
 * CPU per statement (metadata walks and regular-expression rewrites of the whole query), a third of
 * POST /leads' throughput on two cores. What the builder is needed for (Raw and other operators) is
 * answered `undefined` here, and the repository hands it to the builder.
 */

type Where = Record<string, unknown>;

/** A statement and its bound values. */
export type Statement = { sql: string; params: unknown[] };

/** Binds a value into `params` and answers its placeholder, so statements can be built from parts. */
export const bind = (params: unknown[], value: unknown) => `$${params.push(value)}`;

/** A row to insert: its table's metadata and its values as they will be written. */
export type PlacedRow = { meta: EntityMetadata; values: ObjectLiteral };

/** The entity's columns by name (property names are column names here), built once per entity. */
const columnsOf = new WeakMap<EntityMetadata, Map<string, ColumnMetadata>>();
const columns = (meta: EntityMetadata) => {
  let byName = columnsOf.get(meta);
  if (!byName) {
    byName = new Map(meta.columns.map((c) => [c.propertyName, c]));
    columnsOf.set(meta, byName);
  }
  return byName;
};

const quote = (name: string) => `"${name}"`;

const column = (meta: EntityMetadata, name: string): ColumnMetadata => {
  const c = columns(meta).get(name);
  if (!c) throw new Error(`${meta.tableName} has no column ${name}`);
  return c;
};

/**
 * One condition per property, joined with AND; undefined when an operator needs the query builder.
 * A condition without a value is refused, as TypeORM would drop it and match every row.
 */
function conditions(meta: EntityMetadata, where: Where, params: unknown[]): string | undefined {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(where)) {
    const col = quote(column(meta, name).databaseName);
    if (value === undefined || value === null)
      throw new Error(`a query on ${meta.tableName} gave no value for ${name} (IsNull() matches NULL)`);
    if (!(value instanceof FindOperator)) {
      parts.push(`${col} = ${bind(params, value)}`);
      continue;
    }
    const op = value as FindOperator<unknown>;
    const child = op.child;
    if (op.type === 'isNull') parts.push(`${col} IS NULL`);
    else if (op.type === 'in') parts.push(`${col} = ANY(${bind(params, op.value)})`);
    else if (op.type === 'not' && child?.type === 'in')
      parts.push(`NOT (${col} = ANY(${bind(params, child.value)}))`);
    else if (op.type === 'not' && !child) parts.push(`${col} <> ${bind(params, op.value)}`);
    else return undefined;
  }
  return parts.length === 0 ? 'true' : parts.join(' AND ');
}

/** Alternatives joined with OR (TypeORM's array of conditions). */
function anyOf(meta: EntityMetadata, wheres: Where[], params: unknown[]): string | undefined {
  const parts: string[] = [];
  for (const w of wheres) {
    const c = conditions(meta, w, params);
    if (c === undefined) return undefined;
    parts.push(`(${c})`);
  }
  return parts.length === 0 ? 'false' : parts.join(' OR ');
}

/** What a row reads as: the chosen columns, or every column TypeORM selects by default. */
const selectList = (meta: EntityMetadata, select?: ObjectLiteral) =>
  (select
    ? Object.keys(select)
        .filter((k) => select[k] === true)
        .map((k) => column(meta, k))
    : meta.columns.filter((c) => c.isSelect)
  )
    .map((c) => quote(c.databaseName))
    .join(', ');

export type SelectOptions = {
  select?: ObjectLiteral;
  order?: ObjectLiteral;
  take?: number;
  lock?: boolean;
};

/** A SELECT of the rows matching any of `wheres`; undefined when the query builder is needed. */
export function selectStatement(
  meta: EntityMetadata,
  wheres: Where[],
  opts: SelectOptions,
): Statement | undefined {
  const params: unknown[] = [];
  const where = anyOf(meta, wheres, params);
  if (where === undefined) return undefined;
  const order: string[] = [];
  for (const [name, direction] of Object.entries(opts.order ?? {})) {
    if (direction !== 'ASC' && direction !== 'DESC') return undefined;
    order.push(`${quote(column(meta, name).databaseName)} ${direction}`);
  }
  const sql = [
    `SELECT ${selectList(meta, opts.select)} FROM ${quote(meta.tableName)} WHERE ${where}`,
    order.length > 0 ? `ORDER BY ${order.join(', ')}` : '',
    opts.take !== undefined ? `LIMIT ${bind(params, opts.take)}` : '',
    opts.lock ? 'FOR UPDATE' : '',
  ];
  return { sql: sql.filter(Boolean).join(' '), params };
}

/** Whether a row matches; undefined when the query builder is needed. */
export function existsStatement(meta: EntityMetadata, where: Where): Statement | undefined {
  const params: unknown[] = [];
  const c = conditions(meta, where, params);
  if (c === undefined) return undefined;
  return { sql: `SELECT EXISTS (SELECT 1 FROM ${quote(meta.tableName)} WHERE ${c}) AS "exists"`, params };
}

/** A value to write: an SQL expression (`() => 'clock_timestamp()'`) inline, else bound as the driver prepares it. */
function assigned(meta: EntityMetadata, name: string, value: unknown, params: unknown[]) {
  const c = column(meta, name);
  const expression =
    typeof value === 'function'
      ? (value as () => string)()
      : bind(params, meta.connection.driver.preparePersistentValue(value, c));
  return { column: quote(c.databaseName), expression };
}

const given = (values: ObjectLiteral) => Object.entries(values).filter(([, v]) => v !== undefined);

/**
 * The entity's columns, named: a prepared statement answering `*` fails ("cached plan must not change
 * result type") once a migration adds a column while it is cached on a connection.
 */
const everyColumn = (meta: EntityMetadata) => meta.columns.map((c) => quote(c.databaseName)).join(', ');

/** The `INSERT ... VALUES` of one row, its values bound into `params`. */
function insertOf(meta: EntityMetadata, values: ObjectLiteral, params: unknown[]): string {
  const set = given(values).map(([name, value]) => assigned(meta, name, value, params));
  return `INSERT INTO ${quote(meta.tableName)} (${set.map((s) => s.column).join(', ')})
          VALUES (${set.map((s) => s.expression).join(', ')})`;
}

/** An INSERT answering the new row (every column), or only the `returning` columns. */
export function insertStatement(
  meta: EntityMetadata,
  values: ObjectLiteral,
  returning?: string[],
): Statement {
  const params: unknown[] = [];
  const answer = returning
    ? returning.map((r) => quote(column(meta, r).databaseName)).join(', ')
    : everyColumn(meta);
  return { sql: `${insertOf(meta, values, params)} RETURNING ${answer}`, params };
}

/**
 * One row and the rows of other tables that hang from it, inserted by one statement (the others as
 * WITH clauses) and answering the first row whole. PostgreSQL checks foreign keys at the end of the
 * statement, so the rows may name each other's ids whichever order they are written in.
 */
export function insertTogetherStatement(first: PlacedRow, alongside: PlacedRow[]): Statement {
  const params: unknown[] = [];
  const others = alongsideInserts(alongside, params);
  const main = `${insertOf(first.meta, first.values, params)} RETURNING ${everyColumn(first.meta)}`;
  return { sql: others.length > 0 ? `WITH ${others.join(', ')} ${main}` : main, params };
}

/** Rows of other tables written by the same statement, as WITH clauses. */
const alongsideInserts = (alongside: PlacedRow[], params: unknown[]) =>
  alongside.map((r, i) => `alongside_${i} AS (${insertOf(r.meta, r.values, params)})`);

/**
 * An UPDATE answering the changed rows as they now are, or only how many. Wrapped in a WITH, so the
 * driver answers rows (a bare UPDATE answers [rows, count]); `alongside` rows of other tables are
 * inserted by the same statement. Undefined when the query builder is needed.
 */
export function updateStatement(
  meta: EntityMetadata,
  where: Where,
  values: ObjectLiteral,
  answer: 'rows' | 'count' = 'rows',
  alongside: PlacedRow[] = [],
): Statement | undefined {
  const params: unknown[] = [];
  const others = alongsideInserts(alongside, params);
  const set = given(values).map(([name, value]) => assigned(meta, name, value, params));
  if (set.length === 0) throw new Error(`an update of ${meta.tableName} changed nothing`);
  const c = conditions(meta, where, params);
  if (c === undefined) return undefined;
  const assignments = set.map((s) => `${s.column} = ${s.expression}`).join(', ');
  const withs = [
    ...others,
    `changed AS (UPDATE ${quote(meta.tableName)} SET ${assignments} WHERE ${c} RETURNING ${answer === 'count' ? '1' : '*'})`,
  ].join(', ');
  return {
    sql: `WITH ${withs} SELECT ${answer === 'count' ? 'count(*)::int AS n' : '*'} FROM changed`,
    params,
  };
}

/** A DELETE answering the rows as they were; undefined when the query builder is needed. */
export function deleteStatement(meta: EntityMetadata, where: Where): Statement | undefined {
  const params: unknown[] = [];
  const c = conditions(meta, where, params);
  if (c === undefined) return undefined;
  return {
    sql: `WITH gone AS (DELETE FROM ${quote(meta.tableName)} WHERE ${c} RETURNING *) SELECT * FROM gone`,
    params,
  };
}

/** A row as TypeORM's find would answer it: each column converted by the driver. */
export function hydrate<T>(meta: EntityMetadata, row: ObjectLiteral): T {
  const byName = columns(meta);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row) as [string, unknown][]) {
    const c = byName.get(name);
    out[name] = c ? (meta.connection.driver.prepareHydratedValue(value, c) as unknown) : value;
  }
  return out as T;
}
