import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { importProspects } from '../../domain/prospects/operations/prospect-import';
import { repoRoot } from '../../tooling/paths';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, refusal, workspaceWithKey } from '../helpers/fixtures';

const MiB = 1024 * 1024;
const HEADER = 'email,first_name,last_name,company\n';
const RSS_HELPER = path.join(repoRoot(), 'test', 'helpers', 'import-rss.ts');

/** `n` good rows, lines 2 to n + 1 after the header. */
const goodRows = (n: number) =>
  Array.from({ length: n }, (_, i) => `p${i}@acme.example,P${i},Doe,Acme\n`).join('');

describe('prospect import: a hostile file is refused whole, in bounded memory, naming its line; nothing is stored', () => {
  let t: TestDatabase;
  // Under the repository's own .data/, as the other tests keep their files.
  const dir = path.join(
    repoRoot(),
    '.data',
    `prospect-import-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  const file = (name: string, content: string | Buffer) => {
    const p = path.join(dir, name);
    writeFileSync(p, content);
    return p;
  };
  /** `head`, then `size` bytes of "x" written 1 MiB at a time, then `tail`: never the whole file in memory. */
  const bigFile = async (name: string, head: string, size: number, tail: string) => {
    const p = path.join(dir, name);
    const piece = Buffer.alloc(MiB, 'x');
    async function* parts() {
      yield Buffer.from(head);
      for (let left = size; left > 0; left -= MiB) yield left >= MiB ? piece : piece.subarray(0, left);
      yield Buffer.from(tail);
    }
    await pipeline(Readable.from(parts()), createWriteStream(p));
    return p;
  };

  before(async () => {
    t = await freshDatabase();
    mkdirSync(dir, { recursive: true, mode: 0o755 });
  });
  after(async () => {
    await t.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const workspace = async () =>
    (await workspaceWithKey(t.db, { scopes: ['prospects:read', 'prospects:write'] })).workspace.id;
  const run = (workspaceId: string, input: Record<string, unknown>) =>
    asOperator(t.db, importProspects, { list: 'Imported', ...input }, { workspaceId });
  const stored = async (workspaceId: string) => {
    const [counts] = await t.db.query<{ lists: number; prospects: number }[]>(
      `SELECT (SELECT count(*) FROM prospect_lists WHERE workspace_id = $1)::int AS lists,
              (SELECT count(*) FROM prospects WHERE workspace_id = $1)::int AS prospects`,
      [workspaceId],
    );
    return { ...counts };
  };
  /** The refusal of importing `csv` into a new workspace, which is then checked to hold no list and no prospect. */
  const refusedWhole = async (csv: string, input: Record<string, unknown> = {}) => {
    const workspaceId = await workspace();
    const err = await refusal(run(workspaceId, { file: csv, ...input }));
    assert.equal(err.code, 'invalid_request');
    assert.deepEqual(await stored(workspaceId), { lists: 0, prospects: 0 }, 'nothing stored');
    return err;
  };

  it('refuses a 100 MB single field at the record cap, naming its line, with flat memory measured in a process of its own', async (ctx) => {
    const csv = await bigFile(
      'huge-field.csv',
      `${HEADER}ana@acme.example,Ana,Lopez,Acme\nbob@acme.example,Bob,`,
      100 * MiB,
      ',Beta\n',
    );
    const workspaceId = await workspace();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', RSS_HELPER, t.url, workspaceId, JSON.stringify({ file: csv, list: 'Huge' })],
      { cwd: repoRoot(), maxBuffer: MiB },
    );
    const measured = JSON.parse(stdout) as {
      baseline_kib: number;
      peak_kib: number;
      refusal?: { code: string; message: string; details: { field?: string } };
    };
    const grownMiB = (measured.peak_kib - measured.baseline_kib) / 1024;
    ctx.diagnostic(
      `peak RSS ${(measured.peak_kib / 1024).toFixed(1)} MiB, baseline ${(measured.baseline_kib / 1024).toFixed(1)} MiB, grown ${grownMiB.toFixed(1)} MiB`,
    );
    assert.equal(measured.refusal?.code, 'invalid_request', stdout);
    assert.equal(measured.refusal.details.field, 'file');
    assert.match(measured.refusal.message, /the record starting on line 3 is longer than 65536 bytes/);
    assert.ok(grownMiB < 64, `the import grew the process by ${grownMiB.toFixed(1)} MiB`);
    assert.deepEqual(await stored(workspaceId), { lists: 0, prospects: 0 });
  });

  it('names the line a record starts on when a quote left open makes the rows after it one record over the cap', async () => {
    const csv = file(
      'open-quote-long.csv',
      `${HEADER}${goodRows(2)}"zed@acme.example,Zed,${goodRows(5_000)}`,
    );
    const err = await refusedWhole(csv);
    assert.equal(err.details.field, 'file');
    assert.match(err.message, /the record starting on line 4 is longer than 65536 bytes/);
  });

  it('stores nothing when the refusal comes after whole batches were written (the transaction rolls back)', async () => {
    const overCap = await refusedWhole(
      file(
        'late-long.csv',
        `${HEADER}${goodRows(2_500)}\n\nlate@acme.example,${'y'.repeat(70_000)},Doe,Acme\n`,
      ),
    );
    assert.match(overCap.message, /the record starting on line 2504 is longer than/, 'blank lines counted');
    const badByte = await refusedWhole(
      file(
        'late-byte.csv',
        Buffer.concat([
          Buffer.from(`${HEADER}${goodRows(2_500)}`),
          Buffer.from('late@acme.example,Ren\xe9\n', 'latin1'),
        ]),
      ),
    );
    assert.equal(badByte.details.field, 'encoding');
    assert.match(badByte.message, /^line 2502 has bytes that are not valid utf-8/);
    const longField = await refusedWhole(
      file(
        'late-field.csv',
        `${HEADER}${goodRows(1_200)}late@acme.example,Late,"${'z'.repeat(5_000)}",Acme\n`,
      ),
    );
    assert.match(longField.message, /^line 1202: a field is longer than 4096 characters/);
  });

  it('refuses invalid UTF-8 naming the line of the first bad byte; imports Latin-1 and windows-1252 when declared; a BOM is accepted', async () => {
    const latin1 = file(
      'latin1.csv',
      Buffer.from(
        `${HEADER}ana@acme.example,Ana,Lopez,Acme\nrene@acme.example,René,Lefèvre,Crème & Co\n`,
        'latin1',
      ),
    );
    const undeclared = await refusedWhole(latin1);
    assert.equal(undeclared.details.field, 'encoding');
    assert.match(undeclared.message, /^line 3 has bytes that are not valid utf-8: give the file's encoding/);

    const workspaceId = await workspace();
    const report = await run(workspaceId, { file: latin1, encoding: 'latin1' });
    assert.deepEqual([report.rows, report.imported, report.bad_rows], [2, 2, 0]);
    const [rene] = await t.db.query(
      `SELECT first_name, last_name, company FROM prospects WHERE workspace_id = $1 AND email = 'rene@acme.example'`,
      [workspaceId],
    );
    assert.deepEqual({ ...rene }, { first_name: 'René', last_name: 'Lefèvre', company: 'Crème & Co' });

    // 0x92 is windows-1252's right single quote, the apostrophe Word and Excel write.
    const cp1252 = Buffer.concat([
      Buffer.from(`${HEADER}sean@acme.example,Seán,O`, 'latin1'),
      Buffer.from([0x92]),
      Buffer.from('Brien,Acme\n'),
    ]);
    await run(workspaceId, { file: file('cp1252.csv', cp1252), encoding: 'windows-1252', list: 'Irish' });
    const [sean] = await t.db.query(
      `SELECT first_name, last_name FROM prospects WHERE workspace_id = $1 AND email = 'sean@acme.example'`,
      [workspaceId],
    );
    assert.deepEqual({ ...sean }, { first_name: 'Seán', last_name: 'O’Brien' });

    const bom = file('bom.csv', `\ufeff${HEADER}zoe@acme.example,Zoë,Müller,Acme\n`);
    const withBom = await run(workspaceId, { file: bom, list: 'BOM' });
    assert.equal(withBom.imported, 1);
    const bomAsLatin1 = await refusedWhole(bom, { encoding: 'latin1' });
    assert.equal(bomAsLatin1.details.field, 'encoding');
    assert.match(bomAsLatin1.message, /starts with a UTF-8 byte order mark: it is UTF-8, not latin1/);

    const unknown = await refusedWhole(latin1, { encoding: 'utf-16' });
    assert.equal(unknown.details.field, 'encoding');
    assert.match(unknown.message, /encoding must be one of utf-8, latin1, windows-1252/);
  });

  it('refuses an unterminated quote naming the line its record starts on, instead of swallowing the rows after it', async () => {
    const rows =
      'ana@acme.example,Ana,Lopez,Acme\n"bob@acme.example,Bob,Ray,Beta\ncarl@acme.example,Carl,Doe,Gamma\n';
    const toTheEnd = await refusedWhole(file('open-to-end.csv', `${HEADER}${rows}`));
    assert.equal(toTheEnd.details.field, 'file');
    assert.match(
      toTheEnd.message,
      /^a quoted field of the record starting on line 3 is never closed: the file ends inside it/,
    );

    const afterALongRecord = await refusedWhole(
      file(
        'open-after-long.csv',
        `${HEADER}ana@acme.example,Ana,Lopez,"Acme\nGroup"\n\n${rows.slice(rows.indexOf('"'))}`,
      ),
    );
    assert.match(
      afterALongRecord.message,
      /record starting on line 5 is never closed/,
      'lines 2-3, a blank 4',
    );

    const toALaterQuote = await refusedWhole(
      file('open-to-later.csv', `${HEADER}${rows}"dee@acme.example","Dee",Fox,Delta\n`),
    );
    assert.match(
      toALaterQuote.message,
      /^a quoted field of the record starting on line 3 runs to line 5, where a quote is followed/,
    );

    const closedTooLate = await refusedWhole(
      file('closed-late.csv', `${HEADER}"ana@acme.example,Ana,Lopez,Acme\nbob@acme.example,Bob,Ray,5"\n`),
    );
    assert.match(
      closedTooLate.message,
      /^the record starting on line 2 runs to line 3 and has 1 field where the header has 4/,
    );

    const undoubled = await refusedWhole(
      file(
        'undoubled.csv',
        `${HEADER}ana@acme.example,Ana,Lopez,"The "best" firm"\nbob@acme.example,Bob,Ray,Beta\n`,
      ),
    );
    assert.match(
      undoubled.message,
      /^line 2: a quoted field has text after its closing quote; a quote inside a quoted field is written twice/,
    );

    // What real exports hold is kept: a quote inside an unquoted field, a quoted field over two lines.
    const workspaceId = await workspace();
    const kept = await run(workspaceId, {
      file: file(
        'real-quotes.csv',
        `${HEADER}ana@acme.example,Ana,O"Neil,"Acme, ""the"" firm"\nbob@acme.example,Bob,Ray,"5"" Screens\nLtd"\n`,
      ),
    });
    assert.deepEqual([kept.imported, kept.bad_rows], [2, 0]);
    const names = await t.db.query(
      `SELECT last_name, company FROM prospects WHERE workspace_id = $1 ORDER BY line`,
      [workspaceId],
    );
    assert.deepEqual(
      names.map((r: { last_name: string; company: string }) => [r.last_name, r.company]),
      [
        ['O"Neil', 'Acme, "the" firm'],
        ['Ray', '5" Screens\nLtd'],
      ],
    );
  });

  it('refuses an empty file, a blank one and a header without rows', async () => {
    for (const [name, content] of [
      ['empty.csv', ''],
      ['blank.csv', '\n \n\n'],
      ['bom-only.csv', '\ufeff'],
    ]) {
      const err = await refusedWhole(file(name!, content!));
      assert.equal(err.details.field, 'file', name);
      assert.match(
        err.message,
        /^the file is empty: it needs a header row and a row per prospect\. Nothing was imported\.$/,
      );
    }
    const headerOnly = await refusedWhole(file('header-only.csv', `${HEADER}\n\n`));
    assert.equal(headerOnly.details.field, 'file');
    assert.match(headerOnly.message, /^the file has a header but no rows/);
  });

  it('keeps reporting bad rows by line and skipping them, the rest stored', async () => {
    const workspaceId = await workspace();
    const report = await run(workspaceId, {
      file: file(
        'bad-rows.csv',
        [
          HEADER.trim(),
          'ana@acme.example,Ana,Lopez,Acme',
          'not-an-email,Bo,,',
          `carl@acme.example,Carl,Doe,${'c'.repeat(201)}`,
          'dee@acme.example,Dee,Fox,Delta,extra',
          'eve@acme.example',
          'fay@acme.example,Fay,Gil,Zeta',
        ].join('\n'),
      ),
    });
    assert.deepEqual([report.rows, report.imported, report.bad_rows], [6, 2, 4]);
    assert.deepEqual(report.bad, [
      { line: 3, field: 'email', reason: 'email is not an email address' },
      { line: 4, field: 'company', reason: 'company is longer than 200 characters' },
      { line: 5, reason: 'the row has 5 fields where the header has 4' },
      { line: 6, reason: 'the row has 1 field where the header has 4' },
    ]);
    assert.deepEqual(await stored(workspaceId), { lists: 1, prospects: 2 });
  });
});
