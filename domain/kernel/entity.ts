import { EntitySchema, type EntitySchemaColumnOptions, type EntitySchemaOptions } from 'typeorm';

/**
 * Tables as TypeORM `EntitySchema`s (no decorators: row types stay plain types, and nothing depends on
 * emitted decorator metadata). The migrations create the tables; these say the same thing to TypeORM,
 * and `test/integration/entities.test.ts` fails when the two disagree. Names of constraints and indexes
 * are PostgreSQL's own (`<table>_pkey`, `<table>_<column>_fkey`), as the migrations left them.
 */
type Columns<T> = { [K in keyof T]: EntitySchemaColumnOptions };

type Options<T> = Omit<EntitySchemaOptions<T>, 'columns' | 'relations'> & {
  name: string;
  tableName: string;
  columns: Columns<T>;
  /** Foreign keys, as many-to-one relations named after the entity they point at. */
  relations?: Record<string, ManyToOne>;
};

type ManyToOne = {
  type: 'many-to-one';
  target: string;
  joinColumn: { name: string; foreignKeyConstraintName: string };
  onDelete?: 'CASCADE' | 'SET NULL';
  nullable?: boolean;
};

export const entity = <T>(options: Options<T>) => new EntitySchema<T>(options);

/** `GENERATED ALWAYS AS IDENTITY`: TypeORM knows the strategy; EntitySchema's type leaves it out. */
export const IDENTITY = 'identity' as unknown as 'increment';

/** A uuid primary key PostgreSQL generates. */
export const uuidKey = (table: string): EntitySchemaColumnOptions => ({
  type: 'uuid',
  primary: true,
  generated: 'uuid',
  primaryKeyConstraintName: `${table}_pkey`,
});

export const clockDefault = { type: 'timestamptz', default: () => 'clock_timestamp()' } as const;
export const nowDefault = { type: 'timestamptz', default: () => 'now()' } as const;

/** `<column>` references `<target>(id)`: PostgreSQL's constraint name, and what a delete does. */
export const references = (
  table: string,
  column: string,
  target: string,
  opts: { cascade?: boolean; nullable?: boolean; setNull?: boolean } = {},
): ManyToOne => ({
  type: 'many-to-one',
  target,
  joinColumn: { name: column, foreignKeyConstraintName: `${table}_${column}_fkey` },
  ...(opts.setNull
    ? { onDelete: 'SET NULL' as const }
    : opts.cascade === false
      ? {}
      : { onDelete: 'CASCADE' as const }),
  ...(opts.nullable || opts.setNull ? { nullable: true } : { nullable: false }),
});

/** The row's workspace; deleting the workspace deletes the row. */
export const inWorkspace = (table: string) => ({ workspace: references(table, 'workspace_id', 'Workspace') });

/** A CHECK that a text column holds one of `values`, written as PostgreSQL prints it back. */
export const oneOfCheck = (table: string, column: string, values: readonly string[]) => ({
  name: `${table}_${column}_check`,
  expression: `(${column} = ANY (ARRAY[${values.map((v) => `'${v}'::text`).join(', ')}]))`,
});

/** A CHECK on a text column's length, as PostgreSQL prints it back. */
export const lengthCheck = (table: string, column: string, min: number, max: number) => ({
  name: `${table}_${column}_check`,
  expression: `((length(${column}) >= ${min}) AND (length(${column}) <= ${max}))`,
});
