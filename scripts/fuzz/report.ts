import { existsSync, readFileSync } from 'node:fs';

/** The figures the runner reports; the last stdout line is this object as JSON. */
export type FuzzSummary = {
  tool: string;
  passed: boolean;
  exit_code: number;
  seed: number;
  operations: number;
  test_cases: number;
  requests: number;
  failures: number;
  errors: number;
  /** Warning kinds raised (e.g. missing_auth); those listed in schemathesis.toml fail the run. */
  warnings: string[];
  stop_reason: string;
  running_time_s: number | null;
  schema: string;
  junit: string;
};

/** The part of schemathesis's `--report json` document (4.x) the summary needs. */
type RunReport = {
  schemathesis_version: string;
  seed: number | null;
  running_time: number | null;
  stop_reason: string;
  exit_code: number;
  operations: { total: number; selected: number; tested: number } | null;
  test_cases: { generated: number; with_failures: number; unique_failures: number; errored: number };
  failures: { count: number }[];
  errors: { count: number }[];
  warnings?: Record<string, unknown>;
};

function readRunReport(file: string): RunReport | undefined {
  if (!existsSync(file)) return undefined;
  const doc = JSON.parse(readFileSync(file, 'utf8')) as Partial<RunReport>;
  // A report from another schemathesis major would lack these; better no figures than wrong ones.
  if (
    typeof doc.test_cases?.generated !== 'number' ||
    !Array.isArray(doc.failures) ||
    !Array.isArray(doc.errors)
  )
    throw new Error(`${file} is not a schemathesis 4.x JSON report`);
  return doc as RunReport;
}

const sum = (items: { count: number }[]) => items.reduce((n, i) => n + i.count, 0);

export type SummaryInput = {
  reportFile: string;
  junit: string;
  schema: string;
  seed: number;
  exitCode: number;
  timedOut: boolean;
  requests: number;
};

/**
 * Passes only when schemathesis exited 0 and its report shows no failure and no error: a missing
 * report or a timed-out run fails too.
 */
export function summarise(input: SummaryInput): FuzzSummary {
  const report = readRunReport(input.reportFile);
  const failures = report ? Math.max(sum(report.failures), report.test_cases.unique_failures) : 0;
  const errors = report ? sum(report.errors) : 0;
  // Each warning kind maps to the operations it was raised for; an empty list means not raised.
  const warnings = Object.entries(report?.warnings ?? {})
    .filter(([, ops]) => Array.isArray(ops) && ops.length > 0)
    .map(([kind]) => kind);
  const passed =
    input.exitCode === 0 && !input.timedOut && report !== undefined && failures === 0 && errors === 0;
  return {
    tool: report ? `schemathesis ${report.schemathesis_version}` : 'schemathesis',
    passed,
    exit_code: passed ? 0 : input.exitCode === 0 ? 1 : input.exitCode,
    seed: report?.seed ?? input.seed,
    operations: report?.operations?.tested ?? 0,
    test_cases: report?.test_cases.generated ?? 0,
    requests: input.requests,
    failures,
    errors,
    warnings,
    stop_reason: input.timedOut ? 'runner timeout' : (report?.stop_reason ?? 'no report'),
    running_time_s: report?.running_time ?? null,
    schema: input.schema,
    junit: input.junit,
  };
}

export function formatSummary(s: FuzzSummary): string {
  const rows: [string, string][] = [
    ['result', s.passed ? 'PASSED' : `FAILED (exit ${s.exit_code})`],
    ['tool', s.tool],
    ['schema', s.schema],
    ['seed', String(s.seed)],
    ['operations tested', String(s.operations)],
    ['test cases', String(s.test_cases)],
    ['requests (API side)', String(s.requests)],
    ['failures', String(s.failures)],
    ['errors', String(s.errors)],
    ['warnings', s.warnings.join(', ') || 'none'],
    ['stopped', s.stop_reason],
    ['time', s.running_time_s === null ? '-' : `${s.running_time_s.toFixed(1)} s`],
    ['junit report', s.junit],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const rule = '-'.repeat(width + 2 + Math.max(...rows.map(([, v]) => v.length)));
  return ['', 'fuzz summary', rule, ...rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`), rule].join('\n');
}
