import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { SCOPES } from '../../domain/kernel/permissions';
import { makeWorkspace } from '../../tooling/fixtures';
import type { Logger } from '../../infra/logger';
import { createStops } from '../../tooling/cleanup';
import { repoRoot } from '../../tooling/paths';
import { startStack } from '../../tooling/stack';

export const SCHEMA_PATH = '/api/v1/openapi.json';

export type FuzzStack = {
  apiUrl: string;
  apiKey: string;
  /** HTTP requests the API has received, the schema download excepted. */
  requests: () => number;
  /** Idempotent; never throws, so it is safe in `finally` and signal handlers. */
  stop: () => Promise<void>;
};

const ADMIN_EMAIL = 'fuzz-admin@fuzz.example';

/**
 * The stack the tests use, on throwaway data: an embedded PostgreSQL under .data/fuzz-<pid>, the
 * migrated schema, one workspace whose admin holds a key with every scope, and the REST API on a
 * free loopback port. A failure part-way stops whatever had started.
 */
export async function startFuzzStack(log: Logger, signal: AbortSignal): Promise<FuzzStack> {
  const dataDir = path.join(repoRoot(), '.data', `fuzz-${process.pid}`);
  const stops = createStops(log);
  stops.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const stop = stops.stopAll;

  try {
    // PostgreSQL runs as the postgres user when we are root: it must be able to pass through .data.
    mkdirSync(dataDir, { recursive: true, mode: 0o755 });
    const { db, api } = await startStack({
      log,
      stops,
      signal,
      postgres: { dataDir: path.join(dataDir, 'pg'), database: 'leads', fast: true },
      database: {},
      env: {
        NODE_ENV: 'test',
        TEMPORAL_ADDRESS: '127.0.0.1:7233', // required by the config; the REST API never dials it
        PORT: '0',
        // Fuzzing sends far more than a client would; a 429 would only hide the answers under test.
        RATE_LIMIT_PER_MINUTE: '1000000',
        REFUSED_PER_MINUTE: '1000000',
        LOG_LEVEL: 'error',
      },
      api: true,
    });

    const {
      key: { key },
    } = await makeWorkspace(db, {
      name: 'Fuzz workspace',
      timezone: 'Europe/London',
      industry: 'fuzz',
      email: ADMIN_EMAIL,
      keyName: 'Fuzz key (all scopes)',
      scopes: SCOPES,
    });

    let requests = 0;
    api.server.on('request', (req: { url?: string }) => {
      if (req.url?.split('?')[0] !== SCHEMA_PATH) requests += 1;
    });
    signal.throwIfAborted();
    return { apiUrl: api.url, apiKey: key, requests: () => requests, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
