import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dataDir, stackFile } from './paths';

/** What a running `npm run dev` publishes so `npm run admin` (and tests) can reach the same stack. */
export type DevStack = {
  pid: number;
  apiUrl: string;
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl?: string;
  temporalNamespace: string;
  temporalTaskQueue: string;
  children: { postgres?: number; temporal?: number };
};

export function writeDevStack(dir: string, stack: DevStack): void {
  writeFileSync(stackFile(dir), JSON.stringify(stack, null, 2) + '\n', { mode: 0o600 });
}

function readDevStack(env: NodeJS.ProcessEnv = process.env): DevStack | undefined {
  const file = stackFile(dataDir(env));
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as DevStack;
}

/**
 * The environment for a tool run beside `npm run dev`: explicit variables win, the stack file fills
 * in the rest, so the admin CLI needs no flags.
 */
export function envWithDevStack(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const stack = env.DATABASE_URL ? undefined : readDevStack(env);
  if (!stack) return env;
  return {
    NODE_ENV: 'development',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    DATABASE_URL: stack.databaseUrl,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    TEMPORAL_NAMESPACE: stack.temporalNamespace,
    TEMPORAL_TASK_QUEUE: stack.temporalTaskQueue,
    ...env,
  };
}
