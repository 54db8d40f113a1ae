import path from 'node:path';
import { parseArgs } from 'node:util';

export type FuzzOptions = {
  seed: number;
  /** Test cases per operation and phase; the run's size when no time budget is set. */
  maxExamples: number;
  /** Seconds. Schemathesis then repeats fuzzing and stateful until it is spent, so it is a duration, not a cap. */
  maxTime: number | undefined;
  /** Seconds before the runner stops schemathesis and fails: a guard against a stuck run, not a budget. */
  timeout: number;
  /** Seconds one request may take; a slower answer is reported as an error, which fails the run. */
  requestTimeout: number;
  workers: number;
  /** A local OpenAPI file to use instead of the document the API serves. */
  schemaFile: string | undefined;
  excludeChecks: string[];
  /** Everything after a second `--`, passed to `st run` as is. */
  extra: string[];
};

const DEFAULT_SEED = 20261122;
const DEFAULT_MAX_EXAMPLES = 30;

// The router answers an undeclared method with 404 (or 400 from the body check), never 405 + Allow, so
// the first two fail on routing, not on the contract. Positive-data acceptance fails on rules a schema
// cannot state: a reused Idempotency-Key with another body, a digit string that is no real phone number.
const DEFAULT_EXCLUDED_CHECKS = [
  'unsupported_method',
  'allow_header_conformance',
  'positive_data_acceptance',
];

export const USAGE = `Usage: npm run fuzz -- [options] [-- <extra st run arguments>]

  --seed N            fixed seed (FUZZ_SEED, default ${DEFAULT_SEED})
  --max-examples N    test cases per operation and phase (FUZZ_MAX_EXAMPLES, default ${DEFAULT_MAX_EXAMPLES})
  --max-time S        run for S seconds instead: fuzzing and stateful repeat (FUZZ_MAX_TIME)
  --timeout S         stop and fail a run that takes longer (FUZZ_TIMEOUT, default 900, or max-time + 300)
  --request-timeout S a slower answer fails the run (FUZZ_REQUEST_TIMEOUT, default 5)
  --workers N         schemathesis workers (FUZZ_WORKERS, default 1)
  --schema FILE       OpenAPI file instead of GET /api/v1/openapi.json (FUZZ_SCHEMA)
  --exclude-checks L  comma-separated checks to skip (FUZZ_EXCLUDE_CHECKS, default ${DEFAULT_EXCLUDED_CHECKS.join(',')}; "" for none)
`;

function positive(name: string, raw: string | undefined, fallback: number | undefined, integer = true) {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
    throw new Error(`${name} must be a positive ${integer ? 'integer' : 'number'}, got "${raw}"`);
  return n;
}

/** Flags win over FUZZ_* variables, which win over the defaults. */
export function parseFuzzOptions(argv: string[], env: NodeJS.ProcessEnv): FuzzOptions | 'help' {
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const extra = split === -1 ? [] : argv.slice(split + 1);
  const { values } = parseArgs({
    args: own,
    strict: true,
    options: {
      seed: { type: 'string' },
      'max-examples': { type: 'string' },
      'max-time': { type: 'string' },
      timeout: { type: 'string' },
      'request-timeout': { type: 'string' },
      workers: { type: 'string' },
      schema: { type: 'string' },
      'exclude-checks': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const seedRaw = values.seed ?? env.FUZZ_SEED;
  const seed = seedRaw === undefined || seedRaw === '' ? DEFAULT_SEED : Number(seedRaw);
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new Error(`seed must be a whole number, got "${seedRaw}"`);
  const maxTime = positive('max-time', values['max-time'] ?? env.FUZZ_MAX_TIME, undefined);
  const schema = values.schema ?? env.FUZZ_SCHEMA;
  const exclude = values['exclude-checks'] ?? env.FUZZ_EXCLUDE_CHECKS;
  return {
    seed,
    maxExamples: positive(
      'max-examples',
      values['max-examples'] ?? env.FUZZ_MAX_EXAMPLES,
      DEFAULT_MAX_EXAMPLES,
    )!,
    maxTime,
    timeout: positive(
      'timeout',
      values.timeout ?? env.FUZZ_TIMEOUT,
      maxTime === undefined ? 900 : maxTime + 300,
    )!,
    requestTimeout: positive(
      'request-timeout',
      values['request-timeout'] ?? env.FUZZ_REQUEST_TIMEOUT,
      5,
      false,
    )!,
    workers: positive('workers', values.workers ?? env.FUZZ_WORKERS, 1)!,
    schemaFile: schema ? path.resolve(schema) : undefined,
    excludeChecks:
      exclude === undefined
        ? DEFAULT_EXCLUDED_CHECKS
        : exclude
            .split(',')
            .map((c) => c.trim())
            .filter(Boolean),
    extra,
  };
}
