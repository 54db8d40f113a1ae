import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Logger } from '../infra/logger';
import { repoRoot } from './paths';

/**
 * The one Temporal server version this project runs, everywhere: docker-compose's images, `npm run
 * cluster` and docs/deploying.md say the same (a unit test holds them to it). The UI is the release the
 * Temporal CLI of the same server line serves.
 */
export const TEMPORAL_SERVER_VERSION = '1.32.2';
export const TEMPORAL_UI_VERSION = '2.54.1';

/**
 * The module's `go` directive (go.temporal.io/server 1.32.2 says 1.26.10) is newer than many machines'
 * Go; the go command then runs the named toolchain, which it fetches from the module proxy once.
 */
export const DEFAULT_GOTOOLCHAIN = 'go1.27.3';

export type GoBinary = {
  /** The name the official images give it; `go install` would call both servers `server`. */
  name: 'temporal-server' | 'temporal-sql-tool' | 'ui-server';
  module: string;
  /** The package inside the module that `go install` builds. */
  pkg: string;
  version: string;
  /** Folders of the module copied beside the binary (the UI server's configuration templates). */
  withFiles?: string[];
};

export const TEMPORAL_SERVER: GoBinary = {
  name: 'temporal-server',
  module: 'go.temporal.io/server',
  pkg: 'go.temporal.io/server/cmd/server',
  version: TEMPORAL_SERVER_VERSION,
};

export const TEMPORAL_SQL_TOOL: GoBinary = {
  name: 'temporal-sql-tool',
  module: 'go.temporal.io/server',
  pkg: 'go.temporal.io/server/cmd/tools/sql',
  version: TEMPORAL_SERVER_VERSION,
};

export const TEMPORAL_UI_SERVER: GoBinary = {
  name: 'ui-server',
  module: 'github.com/temporalio/ui-server/v2',
  pkg: 'github.com/temporalio/ui-server/v2/cmd/server',
  version: TEMPORAL_UI_VERSION,
  withFiles: ['config'],
};

/** `.tools/<name>-<version>/`: one folder per binary and version, so versions never mix. */
export const toolFolder = (bin: GoBinary) => path.join(repoRoot(), '.tools', `${bin.name}-${bin.version}`);

/**
 * Built binaries outlive a clean clone here (`LEAD_SERVICE_TOOL_CACHE`, else the user's cache folder),
 * so a fresh checkout or CI copies them instead of building for 10-20 minutes again.
 */
const cacheFolder = (bin: GoBinary) =>
  path.join(
    process.env.LEAD_SERVICE_TOOL_CACHE ??
      path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'lead-service'),
    `${bin.name}-${bin.version}`,
  );

function goVersion(): string | undefined {
  const r = spawnSync('go', ['version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** The build's environment: the toolchain the module needs unless the caller chose one. */
const goEnv = (gobin: string): NodeJS.ProcessEnv => ({
  ...process.env,
  GOBIN: gobin,
  GOTOOLCHAIN: process.env.GOTOOLCHAIN ?? DEFAULT_GOTOOLCHAIN,
  GOFLAGS: process.env.GOFLAGS ?? '-mod=mod',
});

async function goInstall(bin: GoBinary, gobin: string, log: Logger): Promise<void> {
  const started = Date.now();
  const child = spawn('go', ['install', `${bin.pkg}@v${bin.version}`], {
    env: goEnv(gobin),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  // A build this long must show it is alive.
  const ticker = setInterval(
    () =>
      log.info(
        `still building ${bin.name} ${bin.version} (${Math.round((Date.now() - started) / 60_000)} min)`,
      ),
    60_000,
  );
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve)).finally(() =>
    clearInterval(ticker),
  );
  if (code !== 0)
    throw new Error(`go install ${bin.pkg}@v${bin.version} failed (${code}):\n${stderr.trim()}`);
}

function moduleFolder(bin: GoBinary): string {
  const r = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8', env: goEnv('') });
  return path.join(r.stdout.trim(), `${bin.module}@v${bin.version}`);
}

/**
 * The path of `bin`, installed once into `.tools/<name>-<version>/<name>`: copied from the tool cache
 * when a previous checkout built it, otherwise built there from its Go module with `go install`.
 * Throws, saying what to install, when Go is missing.
 */
export async function ensureGoBinary(bin: GoBinary, log: Logger): Promise<string> {
  const folder = toolFolder(bin);
  const target = path.join(folder, bin.name);
  if (existsSync(target)) return target;
  const cached = cacheFolder(bin);
  if (!existsSync(path.join(cached, bin.name))) {
    const go = goVersion();
    if (!go)
      throw new Error(
        `${bin.name} ${bin.version} is built from the Go module ${bin.module}, and Go is not installed ` +
          `(no \`go\` on PATH). Install Go 1.22 or newer (https://go.dev/dl/); the build then fetches the ` +
          `toolchain the module needs (GOTOOLCHAIN=${process.env.GOTOOLCHAIN ?? DEFAULT_GOTOOLCHAIN}).`,
      );
    log.info(
      `building ${bin.name} ${bin.version} from ${bin.module} with ${go} (GOTOOLCHAIN=${goEnv('').GOTOOLCHAIN}); ` +
        'the first build takes 10-20 minutes, later ones copy it from the cache',
    );
    // Built and named beside the cache folder, then moved in whole: a parallel or interrupted run never
    // sees half a tool.
    const staging = `${cached}.tmp-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    try {
      await goInstall(bin, staging, log);
      renameSync(path.join(staging, path.basename(bin.pkg)), path.join(staging, bin.name));
      for (const files of bin.withFiles ?? [])
        cpSync(path.join(moduleFolder(bin), files), path.join(staging, files), { recursive: true });
      mkdirSync(path.dirname(cached), { recursive: true });
      if (!existsSync(path.join(cached, bin.name))) {
        rmSync(cached, { recursive: true, force: true });
        renameSync(staging, cached);
      }
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  const staging = `${folder}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  cpSync(cached, staging, { recursive: true });
  copyFileSync(path.join(cached, bin.name), path.join(staging, bin.name));
  chmodSync(path.join(staging, bin.name), 0o755);
  if (!existsSync(target)) renameSync(staging, folder);
  else rmSync(staging, { recursive: true, force: true });
  return target;
}
