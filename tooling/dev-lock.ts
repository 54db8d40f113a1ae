import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stackFile, type DevStack } from '../infra/dev-stack';
import { isAlive } from './processes';

const lockFile = (dir: string) => path.join(dir, 'dev.lock');

/** Who holds a data folder: the run's pid, and its stack once it published one. */
export type Holder = { pid: number; stack?: DevStack };

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * `npm run dev` owns its data folder: one run at a time. The lock file is created exclusively (`wx`),
 * so two runs started together cannot both get it; one left by a run that was killed (its pid gone) is
 * recognised, cleared with that run's stack file, and taken. Answers how to give it back, or who holds it.
 */
export function claimDataDir(dir: string): { release: () => void } | { heldBy: Holder } {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile(dir), JSON.stringify({ pid: process.pid }) + '\n', { flag: 'wx', mode: 0o600 });
      return { release: () => rmSync(lockFile(dir), { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const held = readJson<{ pid: number }>(lockFile(dir));
    if (held && held.pid !== process.pid && isAlive(held.pid))
      return { heldBy: { pid: held.pid, stack: readJson<DevStack>(stackFile(dir)) } };
    rmSync(lockFile(dir), { force: true });
    rmSync(stackFile(dir), { force: true });
  }
  throw new Error(`could not take ${lockFile(dir)}`);
}

/** The refusal a second run prints: who holds the folder, where it answers, and what to do instead. */
export const heldMessage = (dir: string, h: Holder) =>
  [
    `npm run dev is already running with this data folder (${dir}): pid ${h.pid}.`,
    ...(h.stack
      ? [
          `  API base URL:     ${h.stack.apiUrl}/api/v1`,
          ...(h.stack.temporalUiUrl ? [`  Temporal Web UI:  ${h.stack.temporalUiUrl}`] : []),
        ]
      : ['  (it is still starting)']),
    `Stop it (Ctrl+C where it runs, or kill ${h.pid}), or give this run its own folder: DEV_DATA_DIR=.data/other npm run dev`,
    'Nothing was started or changed.',
  ].join('\n');
