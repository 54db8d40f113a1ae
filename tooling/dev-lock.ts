import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stackFile, type DevStack } from '../infra/stack-file';
import type { Stops } from './cleanup';
import { freePort, isAlive } from './processes';

const lockFile = (dir: string) => path.join(dir, 'dev.lock');

/** The commands that own a data folder while they run. */
export type StackCommand = 'dev' | 'cluster';

/** Who holds a data folder: the run's pid and command, and its stack once it published one. */
export type Holder = { pid: number; command: StackCommand; stack?: DevStack };

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
export function claimDataDir(
  dir: string,
  command: StackCommand = 'dev',
): { release: () => void } | { heldBy: Holder } {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile(dir), JSON.stringify({ pid: process.pid, command }) + '\n', {
        flag: 'wx',
        mode: 0o600,
      });
      return { release: () => rmSync(lockFile(dir), { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const held = readJson<{ pid: number; command?: StackCommand }>(lockFile(dir));
    if (held && held.pid !== process.pid && isAlive(held.pid))
      return {
        heldBy: { pid: held.pid, command: held.command ?? 'dev', stack: readJson<DevStack>(stackFile(dir)) },
      };
    rmSync(lockFile(dir), { force: true });
    rmSync(stackFile(dir), { force: true });
  }
  throw new Error(`could not take ${lockFile(dir)}`);
}

/** The refusal a second run prints: who holds the folder, where it answers, and what to do instead. */
export const heldMessage = (dir: string, h: Holder) =>
  [
    `npm run ${h.command} is already running with this data folder (${dir}): pid ${h.pid}.`,
    ...(h.stack
      ? [
          ...(h.stack.apiUrls ?? [h.stack.apiUrl]).map((url) => `  API base URL:     ${url}/api/v1`),
          ...(h.stack.temporalUiUrl ? [`  Temporal Web UI:  ${h.stack.temporalUiUrl}`] : []),
        ]
      : ['  (it is still starting)']),
    `Stop it (Ctrl+C where it runs, or kill ${h.pid}), or give this run its own folder: DEV_DATA_DIR=.data/other npm run <dev|cluster>`,
    'Nothing was started or changed.',
  ].join('\n');

/**
 * Before anything starts, a stack command makes sure the data folder is this run's alone and the
 * API's port is free; otherwise it says why and leaves at once, touching nothing another run owns.
 * The lock and the stack file are given back last, after everything they name has stopped.
 */
export async function takeDataDir(
  dir: string,
  command: StackCommand,
  port: number,
  stops: Stops,
): Promise<void> {
  const claim = claimDataDir(dir, command);
  if ('heldBy' in claim) refuse(heldMessage(dir, claim.heldBy));
  if ((await freePort(port)) !== port) {
    claim.release();
    refuse(
      `Port ${port} is in use (PORT): stop what listens there, or set PORT to another. Nothing was started.`,
    );
  }
  // Pushed first so they run last: while the file is there, what it names may still be running.
  stops.push(async () => claim.release());
  stops.push(async () => rmSync(stackFile(dir), { force: true }));
}

function refuse(message: string): never {
  process.stderr.write(message + '\n');
  process.exit(1);
}
