import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '../infra/logger';
import { repoRoot } from '../tooling/paths';
import { ensurePythonTool } from '../tooling/python-tools';
import { parseFuzzOptions, USAGE } from './fuzz/options';
import { formatSummary, summarise } from './fuzz/report';
import { runSchemathesis, SCHEMATHESIS_TOOL, schemathesisArgs } from './fuzz/schemathesis';
import { SCHEMA_PATH, startFuzzStack, type FuzzStack } from './fuzz/stack';

const abort = new AbortController();
// 128 + the signal's number, as a shell reports a process the signal ended.
const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };
let signalExit: number | undefined;

/**
 * `npm run fuzz`: schemathesis against the real API on throwaway data (see scripts/fuzz/NOTES.md).
 * Exits with schemathesis's code, except that any failure or error in its report fails the run.
 * The last stdout line is one JSON object with the figures.
 */
async function main(): Promise<number> {
  const opts = parseFuzzOptions(process.argv.slice(2), process.env);
  if (opts === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const log = createLogger('fuzz', 'info');
  const exe = ensurePythonTool(SCHEMATHESIS_TOOL, log);
  if (opts.schemaFile && !existsSync(opts.schemaFile))
    throw new Error(`FUZZ_SCHEMA: no file ${opts.schemaFile}`);

  const reportDir = path.join(repoRoot(), '.data', 'fuzz-report');
  const reports = {
    dir: reportDir,
    junit: path.join(reportDir, 'junit.xml'),
    json: path.join(reportDir, 'report.json'),
  };
  // Last run's files would otherwise pass for this run's if schemathesis dies before writing.
  rmSync(reportDir, { recursive: true, force: true });
  mkdirSync(reportDir, { recursive: true, mode: 0o755 });

  const onSignal = (signal: NodeJS.Signals) => {
    log.warn(`${signal} received: stopping schemathesis and the stack`);
    signalExit ??= SIGNAL_EXIT[signal];
    abort.abort(new Error(`interrupted by ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let stack: FuzzStack | undefined;
  try {
    log.info('starting PostgreSQL and the API');
    stack = await startFuzzStack(log, abort.signal);
    const location = opts.schemaFile ?? `${stack.apiUrl}${SCHEMA_PATH}`;
    log.info('running schemathesis', {
      schema: location,
      seed: opts.seed,
      max_examples: opts.maxExamples,
      max_time: opts.maxTime,
    });
    const run = await runSchemathesis(
      exe,
      schemathesisArgs(opts, { location, origin: stack.apiUrl }, reports),
      { ...process.env, FUZZ_API_KEY: stack.apiKey, PYTHONUNBUFFERED: '1' },
      abort.signal,
      opts.timeout * 1000,
    );
    if (run.timedOut) log.error(`schemathesis ran past ${opts.timeout} s and was stopped`);
    const summary = summarise({
      reportFile: reports.json,
      junit: path.relative(repoRoot(), reports.junit),
      schema: opts.schemaFile ? path.relative(repoRoot(), opts.schemaFile) : SCHEMA_PATH,
      seed: opts.seed,
      // A run stopped by our own deadline failed; one stopped by a signal was interrupted.
      exitCode: run.timedOut ? 1 : (signalExit ?? run.code),
      timedOut: run.timedOut,
      requests: stack.requests(),
    });
    await stack.stop();
    stack = undefined;
    process.stdout.write(formatSummary(summary) + '\n');
    process.stdout.write(JSON.stringify(summary) + '\n');
    return summary.exit_code;
  } finally {
    await stack?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(signalExit ?? 1);
  },
);
