import { createHash } from 'node:crypto';
import {
  FindOperator,
  QueryFailedError,
  QueryRunnerAlreadyReleasedError,
  type EntityManager,
  type EntitySchema,
  type FindOptionsOrder,
  type FindOptionsSelect,
  type FindOptionsWhere,
  type ObjectLiteral,
  type Repository,
} from 'typeorm';
import type { Pool, PoolClient } from 'pg';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';
import {
  deleteStatement,
  existsStatement,
  hydrate,
  insertStatement,
  insertTogetherStatement,
  selectStatement,
  updateStatement,
  type PlacedRow,
  type Statement,
} from './statements';

/** A row that belongs to a workspace. */
type InWorkspace = { workspace_id: string };

/**
 * What an operation reads and writes through: the call's EntityManager (its transaction, for a
 * change), confined to the workspace the call acts in. The runner builds it; an area's repository
 * module takes it, so a query that forgets the workspace cannot be written by accident (Twenty's
 * workspace-scoped repositories are the model). `workspaceId` is undefined only for the operator
 * acting on a record by id, who reaches any workspace's records.
 */
export class Data {
  constructor(
    readonly manager: EntityManager,
    readonly workspaceId: string | undefined,
  ) {}

  /** A workspace's table, every query confined to this call's workspace. */
  scoped<T extends InWorkspace>(entity: EntitySchema<T>): ScopedRepository<T> {
    return new ScopedRepository(this.manager.getRepository(entity), this.workspaceId);
  }

  /**
   * A table no workspace owns (users, a delivery's attempts), or any workspace's rows for the
   * background work that spans them: the same repository, unconfined.
   */
  global<T extends ObjectLiteral>(entity: EntitySchema<T>): Table<T> {
    return new Table(this.manager.getRepository(entity));
  }

  /**
   * SQL, where it earns its place (search, the outbox fan-out, aggregates, upserts), written inside
   * an area's repository with a comment saying why. It is not confined: name the workspace yourself.
   */
  sql<R>(text: string, params: unknown[] = []): Promise<R> {
    return this.manager.query<R>(text, params);
  }

  /**
   * `sql` for a statement on every request's path, prepared once per connection under `name`
   * (`preparedQuery`). Only for statements whose best plan does not depend on their values (a key,
   * an id): a generic plan serves every value alike.
   */
  prepared<R>(name: string, text: string, params: unknown[]): Promise<R> {
    return preparedQuery<R>(this.manager, name, text, params);
  }

  /** The same data confined to another workspace: the operator's call, once it knows the record's. */
  in(workspaceId: string): Data {
    return new Data(this.manager, workspaceId);
  }
}

/**
 * Sends a statement prepared under `name` on the connection it runs on (the transaction's, or one of
 * the pool's): PostgreSQL parses it once per connection and, with the pool's
 * `plan_cache_mode = force_generic_plan`, plans it once (planning was half the time of a lookup by
 * key, and 1.5 ms of PostgreSQL's 7 ms per intake). Failures are reported as TypeORM reports them, so
 * a failure is classified the same whichever way it ran.
 */
export async function preparedQuery<R>(
  manager: EntityManager,
  name: string,
  text: string,
  params: unknown[],
): Promise<R> {
  // The transaction's connection (TypeORM types it `any`), or the pool. A runner whose transaction has
  // ended is refused as TypeORM refuses it: connecting it again would take a connection nobody gives back.
  const runner = manager.queryRunner as PostgresQueryRunner | undefined;
  if (runner?.isReleased) throw new QueryRunnerAlreadyReleasedError();
  const client = runner
    ? ((await runner.connect()) as PoolClient)
    : ((manager.connection.driver as PostgresDriver).master as Pool);
  try {
    return (await client.query({ name, text, values: params })).rows as R;
  } catch (err) {
    throw new QueryFailedError(text, params, err as Error);
  }
}

const names = new Map<string, string>();
/** Texts remembered at most; past it the map starts over (the set of built texts is small and fixed). */
const NAMES_KEPT = 1_000;

/**
 * A statement's name for `preparedQuery` when its text is built: the text's hash, so each text has one.
 * Remembered per text, so a statement run on every request is hashed once.
 */
export const nameOf = (text: string) => {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= NAMES_KEPT) names.clear();
    name = `s_${createHash('sha1').update(text).digest('base64url')}`;
    names.set(text, name);
  }
  return name;
};

type Where<T> = FindOptionsWhere<T>;

/** Values for an insert or update: a value, or an SQL expression (`() => 'clock_timestamp()'`). */
export type Changes<T> = { [K in keyof T]?: T[K] | (() => string) };

/**
 * TypeORM's repository for a table, with the reads and changes the areas use. Changes answer the rows
 * as they now are (`RETURNING *`), as PostgreSQL gives them. Plain conditions (values, In, Not,
 * IsNull) are sent as statements written from the entity's metadata (`statements.ts` says why);
 * anything else (Raw) goes through TypeORM's query builder. A condition without a value is refused
 * either way: TypeORM would drop it and match every row.
 */
export class Table<T extends ObjectLiteral> {
  constructor(protected readonly repo: Repository<T>) {}

  protected get meta() {
    return this.repo.metadata;
  }

  /** The conditions as sent: refused when one has no value. */
  protected confined(where: Where<T>): Where<T> {
    const missing = Object.entries(where).find(([, v]) => v === undefined || v === null);
    if (missing) throw new Error(`a query on ${this.meta.tableName} gave no value for ${missing[0]}`);
    return where;
  }

  /**
   * `prepare`: the statement's plan cannot depend on its values (an insert; a row by its primary key),
   * so it is prepared on its connection (`preparedQuery`), sparing PostgreSQL its parsing and planning.
   */
  private async rows<R = T[]>(s: Statement, prepare = false): Promise<R> {
    if (prepare) return preparedQuery<R>(this.repo.manager, nameOf(s.sql), s.sql, s.params);
    return this.repo.manager.query<R>(s.sql, s.params);
  }

  /** Whether the conditions name one row by its whole primary key, with plain values. */
  private byPrimaryKey(wheres: Where<T>[]): boolean {
    if (wheres.length !== 1) return false;
    const where = wheres[0] as Record<string, unknown>;
    return this.meta.primaryColumns.every((c) => {
      const v = where[c.propertyName];
      return v !== undefined && v !== null && !(v instanceof FindOperator);
    });
  }

  /** One row, or null; `lock` holds it (`FOR UPDATE`) until the transaction ends. */
  async findOne(
    where: Where<T>,
    opts: { lock?: boolean; select?: FindOptionsSelect<T> } = {},
  ): Promise<T | null> {
    const [row] = await this.find(where, { ...opts, take: 1 });
    return row ?? null;
  }

  /** The rows matching `where` (any of them, for a list). */
  async find(
    where: Where<T> | Where<T>[],
    opts: { order?: FindOptionsOrder<T>; take?: number; select?: FindOptionsSelect<T>; lock?: boolean } = {},
  ): Promise<T[]> {
    const confined = (Array.isArray(where) ? where : [where]).map((w) => this.confined(w));
    const statement = selectStatement(this.meta, confined, opts);
    if (statement)
      return (await this.rows(statement, this.byPrimaryKey(confined))).map((r) => hydrate<T>(this.meta, r));
    return this.repo.find({
      where: confined,
      ...(opts.select && { select: opts.select }),
      ...(opts.order && { order: opts.order }),
      ...(opts.take !== undefined && { take: opts.take }),
      ...(opts.lock && { lock: { mode: 'pessimistic_write' } }),
    });
  }

  async exists(where: Where<T>): Promise<boolean> {
    const confined = this.confined(where);
    const statement = existsStatement(this.meta, confined);
    if (!statement) return this.repo.exists({ where: confined });
    // An existence check stops at the first row, whatever the values: prepared.
    const [{ exists }] = await this.rows<[{ exists: boolean }]>(statement, true);
    return exists;
  }

  /** The values an insert writes (a scoped table adds the workspace). */
  protected placed(values: Changes<T>): Changes<T> {
    return values;
  }

  /** Inserts a row, answering it whole (database defaults filled in). */
  async insert(values: Changes<T>): Promise<T> {
    const [row] = await this.rows(insertStatement(this.meta, this.placed(values)), true);
    return row!;
  }

  /**
   * Inserts a row together with rows of other tables that hang from it, in one statement (one round
   * trip, and a row written once instead of inserted and then updated with what the others gave it).
   * Answers the row whole. Ids that the rows name of each other are chosen by the caller.
   */
  async insertWith(values: Changes<T>, alongside: PlacedRow[]): Promise<T> {
    const [row] = await this.rows(insertTogetherStatement(this.row(values), alongside), true);
    return row!;
  }

  /**
   * Changes the row named by its primary key and inserts rows of other tables that hang from it, in one
   * statement (one round trip, and the row written once instead of once per change). Answers the row as
   * it now is. The row must exist (the caller holds it locked): the inserts run whether or not the
   * change matched, so a missing row throws, and the caller's transaction takes them back.
   */
  async updateWith(where: Where<T>, values: Changes<T>, alongside: PlacedRow[]): Promise<T> {
    const confined = this.confined(where);
    const statement = this.byPrimaryKey([confined])
      ? updateStatement(this.meta, confined, values, 'rows', alongside)
      : undefined;
    if (!statement) throw new Error(`updateWith on ${this.meta.tableName} names a row by its primary key`);
    const [row] = await this.rows(statement);
    if (!row) throw new Error(`updateWith on ${this.meta.tableName} found no row to change`);
    return row;
  }

  /** A row of this table for another's `insertWith`. */
  row(values: Changes<T>): PlacedRow {
    return { meta: this.meta, values: this.placed(values) };
  }

  /** Inserts a row, answering only the columns the caller needs (an id, a default). */
  async add<K extends keyof T & string>(values: Changes<T>, returning: K[]): Promise<Pick<T, K>> {
    const [row] = await this.rows(insertStatement(this.meta, this.placed(values), returning), true);
    return row!;
  }

  /** Changes the matching rows and answers them as they now are. */
  async update(where: Where<T>, values: Changes<T>): Promise<T[]> {
    const confined = this.confined(where);
    const statement = updateStatement(this.meta, confined, values);
    if (statement) return this.rows(statement);
    const result = await this.repo
      .createQueryBuilder()
      .update()
      .set(values)
      .where(confined)
      .returning('*')
      .execute();
    return result.raw as T[];
  }

  /** Changes the matching rows without reading them back, answering how many changed. */
  async set(where: Where<T>, values: Changes<T>): Promise<number> {
    const confined = this.confined(where);
    const statement = updateStatement(this.meta, confined, values, 'count');
    if (!statement) return (await this.update(where, values)).length;
    const [{ n }] = await this.repo.manager.query<[{ n: number }]>(statement.sql, statement.params);
    return n;
  }

  /** Deletes the matching rows and answers them as they were. */
  async delete(where: Where<T>): Promise<T[]> {
    const confined = this.confined(where);
    const statement = deleteStatement(this.meta, confined);
    if (statement) return this.rows(statement);
    const result = await this.repo.createQueryBuilder().delete().where(confined).returning('*').execute();
    return result.raw as T[];
  }
}

/**
 * A workspace's table, with the workspace in every query: reads and changes match only the call's
 * workspace's rows, and an insert writes it (one naming another workspace is refused).
 */
export class ScopedRepository<T extends InWorkspace> extends Table<T> {
  constructor(
    repo: Repository<T>,
    readonly workspaceId: string | undefined,
  ) {
    super(repo);
  }

  protected override confined(where: Where<T>): Where<T> {
    const checked = super.confined(where);
    return this.workspaceId === undefined ? checked : { ...checked, workspace_id: this.workspaceId };
  }

  /** An insert goes in the call's workspace (the operator names it in `values`). */
  protected override placed(values: Changes<T>): Changes<T> {
    const named = typeof values.workspace_id === 'string' ? values.workspace_id : undefined;
    const workspace_id = this.workspaceId ?? named;
    if (!workspace_id) throw new Error('an insert needs the workspace it belongs to');
    if (named && named !== workspace_id) throw new Error("an insert named another workspace than the call's");
    return { ...values, workspace_id };
  }
}
