import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { listenApi } from '../../api/listen';
import type { CallContext } from '../../domain/audit';
import { openDatabase } from '../../domain/data-source';
import { createApiKey } from '../../domain/operations/api-keys';
import { createWorkspace } from '../../domain/operations/create-workspace';
import { addMember } from '../../domain/operations/members';
import { SCOPES } from '../../domain/policy';
import { loadConfig } from '../../infra/config';
import { createLogger, type Logger } from '../../infra/logger';
import { repoRoot } from '../../infra/paths';
import { startEmbeddedPostgres } from '../../infra/postgres';

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
  const undo: (() => Promise<void>)[] = [async () => rmSync(dataDir, { recursive: true, force: true })];
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      for (const step of undo.reverse()) {
        await step().catch((err: unknown) =>
          log.warn('fuzz stack: clean-up step failed', { error: String(err) }),
        );
      }
    })());

  try {
    // PostgreSQL runs as the postgres user when we are root: it must be able to pass through .data.
    mkdirSync(dataDir, { recursive: true, mode: 0o755 });
    const pg = await startEmbeddedPostgres({
      dataDir: path.join(dataDir, 'pg'),
      database: 'leads',
      log,
      fast: true,
    });
    undo.push(pg.stop);
    signal.throwIfAborted();

    const db = await openDatabase(pg.url, { migrate: true });
    undo.push(() => db.destroy());
    signal.throwIfAborted();

    const ctx: CallContext = { door: 'admin' };
    const workspace = await createWorkspace(db, ctx, {
      name: 'Fuzz workspace',
      timezone: 'Europe/London',
      industry: 'fuzz',
    });
    await addMember(db, ctx, { workspaceId: workspace.id, email: ADMIN_EMAIL, role: 'admin' });
    const { key } = await createApiKey(db, ctx, {
      workspaceId: workspace.id,
      ownerEmail: ADMIN_EMAIL,
      name: 'Fuzz key (all scopes)',
      scopes: [...SCOPES],
    });

    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: pg.url,
      TEMPORAL_ADDRESS: '127.0.0.1:7233', // required by the config; the REST API never dials it
      PORT: '0',
      // Fuzzing sends far more than a client would; a 429 would only hide the answers under test.
      RATE_LIMIT_PER_MINUTE: '1000000',
      LOG_LEVEL: 'error',
    });
    const api = await listenApi(config, db, createLogger('api', config.logLevel));
    undo.push(() => api.close());
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
