import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './paths';

/**
 * Node arguments that preload the crash-safety fault hook (tooling/fault-hooks.mjs) into a service run
 * with tsx: it crashes the process where API_CRASH_AFTER_COMMIT or RELAY_CRASH_AT say, and does nothing
 * without them: `node --import tsx ...faultHookArgs() <entry>`.
 */
export const faultHookArgs = (): string[] => [
  '--import',
  pathToFileURL(path.join(repoRoot(), 'tooling', 'fault-hooks.mjs')).href,
];
