import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { once } from 'node:events';
import { parse } from 'csv-parse';
import { importProspects } from '../domain/prospects/operations/prospect-import';
import { createWorkspace } from '../domain/identity/operations/workspace-create';
import { withCleanup } from '../tooling/cleanup';
import { repoRoot } from '../tooling/paths';
import { parseIntFlags } from './lib/args';
import { asBenchOperator, openBenchDatabase } from './lib/bench-database';
import { benchLogger } from './lib/log';
import { formatTable } from './lib/report';
import { testServices } from '../tooling/services';

const USAGE = 'npm run bench -- prospect-import [--rows N] [--small N]';
const benchDir = () => path.join(repoRoot(), '.data', 'bench', 'prospects');
const INDUSTRIES = ['Dental clinics', 'Software', 'Physiotherapy', 'Accounting', 'Architecture'];
const ROLES = ['Owner', 'Practice manager', 'Head of operations', 'Receptionist', 'Director'];

/** A candidate file of `rows` rows (and a quoted field with a comma in every tenth), written as a stream. */
async function writeCsv(file: string, rows: number) {
  const out = createWriteStream(file);
  out.write('email,phone,first_name,last_name,company,industry,role,country,website\n');
  for (let i = 1; i <= rows; i++) {
    const company = i % 10 === 0 ? `"Clinic ${i}, Ltd"` : `Clinic ${i}`;
    const line = `prospect${i}@example.com,+4477009${String(i).padStart(5, '0')},Pat${i},Lee,${company},${INDUSTRIES[i % 5]},${ROLES[i % 5]},GB,https://c${i}.example\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

// A full collection on demand, so the sampler reads what is live rather than garbage not yet collected.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/**
 * Peak memory while `work` runs, above what the process held before it: RSS every 20 ms, and the live
 * heap (after a full collection) every 250 ms.
 */
async function measured<T>(work: () => Promise<T>) {
  gc();
  const before = process.memoryUsage();
  let rss = before.rss;
  let heap = before.heapUsed;
  const rssSampler = setInterval(() => {
    rss = Math.max(rss, process.memoryUsage().rss);
  }, 20);
  const heapSampler = setInterval(() => {
    gc();
    heap = Math.max(heap, process.memoryUsage().heapUsed);
  }, 250);
  const started = performance.now();
  try {
    const result = await work();
    const seconds = (performance.now() - started) / 1000;
    const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;
    return {
      result,
      seconds,
      peak_rss_delta_mib: mib(rss - before.rss),
      peak_heap_delta_mib: mib(heap - before.heapUsed),
    };
  } finally {
    clearInterval(rssSampler);
    clearInterval(heapSampler);
  }
}

/** The floor: csv-parse alone reading the same file, as the import streams it. */
async function parseOnly(file: string): Promise<number> {
  let n = 0;
  const parser = createReadStream(file).pipe(
    parse({ bom: true, columns: true, relax_quotes: true, info: true }),
  );
  for await (const record of parser as AsyncIterable<unknown>) if (record) n++;
  return n;
}

/**
 * `npm run bench -- prospect-import`: imports a CSV of 100,000 candidates through `prospect.import` (the
 * operation the admin CLI runs), against csv-parse alone reading the same file in the same run; then a
 * small file, to show the import's memory does not grow with the file. Progress on stderr; the table,
 * then one JSON line with every figure, on stdout.
 */
export async function main(args: string[]) {
  const flags = parseIntFlags(args, { rows: 100_000, small: 10_000 }, USAGE);
  const log = benchLogger('prospect-import');
  mkdirSync(benchDir(), { recursive: true, mode: 0o755 });
  await withCleanup(log, async (stops) => {
    const { db } = await openBenchDatabase(log, stops, { dataDir: path.join(benchDir(), 'pg'), fresh: true });
    const services = testServices(db);
    const big = path.join(benchDir(), `candidates-${flags.rows}.csv`);
    const small = path.join(benchDir(), `candidates-${flags.small}.csv`);
    log.info(`writing ${flags.rows} and ${flags.small} rows`);
    await writeCsv(big, flags.rows);
    await writeCsv(small, flags.small);

    await parseOnly(small); // warm the parser's paths
    const floor = await measured(() => parseOnly(big));
    const run = async (file: string, rows: number) => {
      const ws = await asBenchOperator(services, createWorkspace, {
        name: `Import bench ${rows} ${Date.now()}`,
        timezone: 'Europe/London',
        industry: 'Dental clinics',
      });
      log.info(`importing ${rows} rows`);
      return measured(() =>
        asBenchOperator(services, importProspects, { file, list: 'Bench' }, { workspaceId: ws.id }),
      );
    };
    const smallRun = await run(small, flags.small);
    const bigRun = await run(big, flags.rows);
    const rate = (rows: number, s: number) => Math.round(rows / s);
    const floorRate = rate(flags.rows, floor.seconds);
    const bigRate = rate(bigRun.result.imported, bigRun.seconds);
    const lost = bigRun.result.imported !== flags.rows || smallRun.result.imported !== flags.small;

    console.log(
      formatTable(
        ['', 'rows', 'seconds', 'rows/s', 'peak RSS +MiB', 'peak live heap +MiB', 'vs csv-parse alone'],
        [
          [
            'csv-parse alone',
            String(floor.result),
            floor.seconds.toFixed(2),
            String(floorRate),
            String(floor.peak_rss_delta_mib),
            String(floor.peak_heap_delta_mib),
            '1.000',
          ],
          [
            'prospect.import (small)',
            String(smallRun.result.imported),
            smallRun.seconds.toFixed(2),
            String(rate(smallRun.result.imported, smallRun.seconds)),
            String(smallRun.peak_rss_delta_mib),
            String(smallRun.peak_heap_delta_mib),
            '-',
          ],
          [
            'prospect.import',
            String(bigRun.result.imported),
            bigRun.seconds.toFixed(2),
            String(bigRate),
            String(bigRun.peak_rss_delta_mib),
            String(bigRun.peak_heap_delta_mib),
            (bigRate / floorRate).toFixed(3),
          ],
        ],
      ),
    );
    console.log(
      `\n${flags.rows} rows imported at ${bigRate} rows/s (${(bigRate / floorRate).toFixed(3)}x csv-parse alone); ` +
        `peak live heap +${bigRun.peak_heap_delta_mib} MiB for ${flags.rows} rows vs +${smallRun.peak_heap_delta_mib} MiB for ${flags.small}` +
        (lost ? '; ROWS MISSING' : ''),
    );
    console.log(
      JSON.stringify({
        bench: 'prospect-import',
        rows: flags.rows,
        small_rows: flags.small,
        parse_only: {
          seconds: floor.seconds,
          rows_per_s: floorRate,
          peak_rss_delta_mib: floor.peak_rss_delta_mib,
          peak_heap_delta_mib: floor.peak_heap_delta_mib,
        },
        import_small: {
          imported: smallRun.result.imported,
          seconds: smallRun.seconds,
          rows_per_s: rate(smallRun.result.imported, smallRun.seconds),
          peak_rss_delta_mib: smallRun.peak_rss_delta_mib,
          peak_heap_delta_mib: smallRun.peak_heap_delta_mib,
        },
        import: {
          imported: bigRun.result.imported,
          seconds: bigRun.seconds,
          rows_per_s: bigRate,
          peak_rss_delta_mib: bigRun.peak_rss_delta_mib,
          peak_heap_delta_mib: bigRun.peak_heap_delta_mib,
        },
        ratio_import_vs_parse_only: Math.round((bigRate / floorRate) * 1000) / 1000,
        heap_growth_ratio_big_vs_small:
          smallRun.peak_heap_delta_mib > 0
            ? Math.round((bigRun.peak_heap_delta_mib / smallRun.peak_heap_delta_mib) * 100) / 100
            : null,
        rows_missing: lost,
      }),
    );
    if (lost) process.exitCode = 1;
  });
}
