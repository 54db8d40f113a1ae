import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Pool } from 'pg';
import {
  In,
  IsNull,
  Not,
  QueryFailedError,
  QueryRunnerAlreadyReleasedError,
  Raw,
  type EntityManager,
} from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { Data } from '../../domain/kernel/data';
import { LeadEntity } from '../../domain/leads/entities';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { workspaceWithKey } from '../helpers/fixtures';

/** What the runner hands every operation: the call's data, confined to its workspace. */
describe('workspace-scoped data', () => {
  let t: TestDatabase;
  let mine: string;
  let theirs: string;
  let theirLead: string;
  before(async () => {
    t = await freshDatabase();
    mine = (await workspaceWithKey(t.db)).workspace.id;
    theirs = (await workspaceWithKey(t.db)).workspace.id;
    theirLead = (await new Data(t.db.manager, theirs).scoped(LeadEntity).insert({ first_name: 'Theirs' })).id;
  });
  after(() => t.drop());

  const leads = (workspaceId: string | undefined) => new Data(t.db.manager, workspaceId).scoped(LeadEntity);

  it('writes the call’s workspace into an insert, and refuses one that names another', async () => {
    const lead = await leads(mine).insert({ first_name: 'Mine' });
    assert.equal(lead.workspace_id, mine);
    await assert.rejects(
      leads(mine).insert({ first_name: 'Stray', workspace_id: theirs }),
      /another workspace/,
    );
    await assert.rejects(leads(undefined).insert({ first_name: 'Nowhere' }), /needs the workspace/);
  });

  it('reads, changes and deletes only the call’s workspace’s rows', async () => {
    assert.equal(await leads(mine).findOne({ id: theirLead }), null);
    assert.equal(await leads(mine).exists({ id: theirLead }), false);
    assert.deepEqual(await leads(mine).find([{ id: theirLead }, { first_name: 'Theirs' }]), []);
    assert.deepEqual(await leads(mine).update({ id: theirLead }, { first_name: 'Taken' }), []);
    assert.deepEqual(await leads(mine).delete({ id: theirLead }), []);
    const [row] = await t.db.query<{ first_name: string }[]>('SELECT first_name FROM leads WHERE id = $1', [
      theirLead,
    ]);
    assert.equal(row?.first_name, 'Theirs');
  });

  it('lets the operator reach any workspace’s record by id, then confines the call to it', async () => {
    const found = await leads(undefined).findOne({ id: theirLead });
    assert.equal(found?.workspace_id, theirs);
    const confined = new Data(t.db.manager, undefined).in(found.workspace_id).scoped(LeadEntity);
    assert.equal(await confined.exists({ first_name: 'Mine' }), false);
  });

  it('refuses a condition without a value, which TypeORM would otherwise drop and match every row', async () => {
    await assert.rejects(leads(mine).findOne({ id: undefined }), /no value for id/);
    await assert.rejects(leads(mine).update({ id: undefined }, { first_name: 'All' }), /no value for id/);
  });

  it('answers rows as TypeORM’s own find does, column for column', async () => {
    await leads(mine).insert({
      first_name: 'Typed',
      answers: { budget: 'high' },
      email: 'typed@example.com',
    });
    const ours = await leads(mine).find({}, { order: { created_at: 'ASC', id: 'ASC' } });
    const typeorms = await t.db
      .getRepository(LeadEntity)
      .find({ where: { workspace_id: mine }, order: { created_at: 'ASC', id: 'ASC' } });
    assert.ok(ours.length >= 2);
    assert.deepEqual(
      ours.map((r) => ({ ...r })),
      typeorms.map((r) => ({ ...r })),
    );
  });

  it('reads In, Not, IsNull, and hands Raw to the query builder, still confined', async () => {
    const all = (where: Parameters<ReturnType<typeof leads>['find']>[0]) =>
      leads(mine)
        .find(where)
        .then((rows) => rows.map((r) => r.first_name).sort());
    assert.deepEqual(await all({ first_name: In(['Mine', 'Theirs', 'Typed']) }), ['Mine', 'Typed']);
    assert.deepEqual(await all({ first_name: Not(In(['Mine'])) }), ['Typed']);
    assert.deepEqual(await all({ first_name: Not('Typed') }), ['Mine']);
    assert.deepEqual(await all({ email: IsNull() }), ['Mine']);
    assert.deepEqual(await all({ first_name: Raw((c) => `${c} LIKE 'T%'`) }), ['Typed']);
    assert.deepEqual(
      (await leads(mine).delete({ first_name: Raw((c) => `${c} = 'Theirs'`) })).map((r) => r.id),
      [],
    );
  });

  it('runs a prepared statement once per connection outside a transaction, and in the transaction inside one', async () => {
    const byName = (d: Data, name: string) =>
      d.prepared<{ first_name: string }[]>(
        'data-test-lead-by-name',
        'SELECT first_name FROM leads WHERE workspace_id = $1 AND first_name = $2',
        [d.workspaceId, name],
      );
    await leads(mine).insert({ first_name: 'Prepared' });
    // Six runs: PostgreSQL switches a prepared statement to its generic plan after five.
    for (let i = 0; i < 6; i++)
      assert.deepEqual(await byName(new Data(t.db.manager, mine), 'Prepared'), [{ first_name: 'Prepared' }]);
    await t.db.transaction(async (m) => {
      const inside = new Data(m, mine);
      await inside.scoped(LeadEntity).insert({ first_name: 'Uncommitted' });
      assert.deepEqual(await byName(inside, 'Uncommitted'), [{ first_name: 'Uncommitted' }]);
      assert.deepEqual(await byName(new Data(t.db.manager, mine), 'Uncommitted'), [], 'not seen outside');
    });
    // A failure reads as TypeORM reports one, so the doors classify it the same way.
    await assert.rejects(
      new Data(t.db.manager, mine).prepared('data-test-bad-cast', 'SELECT $1::int AS n', ['not a number']),
      (err: unknown) =>
        err instanceof QueryFailedError && (err.driverError as { code?: string }).code === '22P02',
    );
  });

  it('refuses a prepared statement on a finished transaction without taking a connection', async () => {
    let ended: EntityManager | undefined;
    await t.db.transaction(async (m) => {
      ended = m;
      await new Data(m, mine).prepared('data-test-one', 'SELECT 1 AS n', []);
    });
    const pool = (t.db.driver as PostgresDriver).master as Pool;
    const connections = pool.totalCount;
    await assert.rejects(
      new Data(ended!, mine).prepared('data-test-one', 'SELECT 1 AS n', []),
      QueryRunnerAlreadyReleasedError,
    );
    assert.equal(pool.totalCount, connections);
    assert.equal(pool.idleCount, connections, 'every connection back in the pool');
  });

  it('keeps inserting through prepared statements after a migration adds a column to the table', async () => {
    // Inserts are prepared per connection; one answering `*` would fail once the row it answers grows.
    const pool = (t.db.driver as PostgresDriver).master as Pool;
    const insertOnEvery = () =>
      Promise.all(
        Array.from({ length: pool.options.max ?? 10 }, (_, i) =>
          leads(mine).insert({ first_name: `Before ${i}` }),
        ),
      );
    await insertOnEvery();
    await t.db.query('ALTER TABLE leads ADD COLUMN data_test_extra text');
    try {
      const after = await insertOnEvery();
      assert.ok(after.every((l) => l.workspace_id === mine && !('data_test_extra' in l)));
    } finally {
      await t.db.query('ALTER TABLE leads DROP COLUMN data_test_extra');
    }
  });
});
