import type {
  EntityManager,
  EntitySchema,
  FindOptionsOrder,
  FindOptionsSelect,
  FindOptionsWhere,
  ObjectLiteral,
  Repository,
} from 'typeorm';

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

  /** A table no workspace owns (users, attempts of a delivery): TypeORM's own repository. */
  global<T extends ObjectLiteral>(entity: EntitySchema<T>): Repository<T> {
    return this.manager.getRepository(entity);
  }

  /**
   * SQL, where it earns its place (search, the outbox fan-out, aggregates, upserts), written inside
   * an area's repository with a comment saying why. It is not confined: name the workspace yourself.
   */
  sql<R>(text: string, params: unknown[] = []): Promise<R> {
    return this.manager.query<R>(text, params);
  }

  /** The same data confined to another workspace: the operator's call, once it knows the record's. */
  in(workspaceId: string): Data {
    return new Data(this.manager, workspaceId);
  }
}

type Where<T> = FindOptionsWhere<T>;

/** Values for an insert or update: a value, or an SQL expression (`() => 'clock_timestamp()'`). */
export type Changes<T> = { [K in keyof T]?: T[K] | (() => string) };

/**
 * TypeORM's repository for a workspace's table, with the workspace in every query: reads and changes
 * match only the call's workspace's rows, and an insert writes it. Changes answer the rows as they now
 * are (`RETURNING *`), as PostgreSQL gives them.
 */
export class ScopedRepository<T extends InWorkspace> {
  constructor(
    private readonly repo: Repository<T>,
    readonly workspaceId: string | undefined,
  ) {}

  private confined(where: Where<T>): Where<T> {
    // TypeORM drops a condition whose value is undefined, so `{ id: undefined }` would match every row.
    const missing = Object.entries(where).find(([, v]) => v === undefined);
    if (missing)
      throw new Error(`a query on ${this.repo.metadata.tableName} gave no value for ${missing[0]}`);
    return this.workspaceId === undefined ? where : { ...where, workspace_id: this.workspaceId };
  }

  /** One row, or null; `lock` holds it (`FOR UPDATE`) until the transaction ends. */
  async findOne(
    where: Where<T>,
    opts: { lock?: boolean; select?: FindOptionsSelect<T> } = {},
  ): Promise<T | null> {
    return this.repo.findOne({
      where: this.confined(where),
      ...(opts.select ? { select: opts.select } : {}),
      ...(opts.lock ? { lock: { mode: 'pessimistic_write' } } : {}),
    });
  }

  async find(
    where: Where<T> | Where<T>[],
    opts: { order?: FindOptionsOrder<T>; take?: number; select?: FindOptionsSelect<T> } = {},
  ): Promise<T[]> {
    const confined = Array.isArray(where) ? where.map((w) => this.confined(w)) : this.confined(where);
    return this.repo.find({ where: confined, ...opts });
  }

  async exists(where: Where<T>): Promise<boolean> {
    return this.repo.exists({ where: this.confined(where) });
  }

  /** Inserts a row in the call's workspace (the operator names it in `values`), answering it whole. */
  async insert(values: Changes<T>): Promise<T> {
    const named = typeof values.workspace_id === 'string' ? values.workspace_id : undefined;
    const workspace_id = this.workspaceId ?? named;
    if (!workspace_id) throw new Error('an insert needs the workspace it belongs to');
    if (named && named !== workspace_id) throw new Error("an insert named another workspace than the call's");
    const result = await this.repo
      .createQueryBuilder()
      .insert()
      .values({ ...values, workspace_id } as never)
      .returning('*')
      .execute();
    return (result.raw as T[])[0]!;
  }

  /** Changes the matching rows of the workspace and answers them as they now are. */
  async update(where: Where<T>, values: Changes<T>): Promise<T[]> {
    const result = await this.repo
      .createQueryBuilder()
      .update()
      .set(values as never)
      .where(this.confined(where))
      .returning('*')
      .execute();
    return result.raw as T[];
  }

  /** Deletes the matching rows of the workspace and answers them as they were. */
  async delete(where: Where<T>): Promise<T[]> {
    const result = await this.repo
      .createQueryBuilder()
      .delete()
      .where(this.confined(where))
      .returning('*')
      .execute();
    return result.raw as T[];
  }
}
