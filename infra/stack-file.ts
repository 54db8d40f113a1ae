import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The repository root: the nearest folder above this file holding package.json (works from dist/ too). */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${__dirname}`);
    dir = parent;
  }
  return dir;
}

/** Where `npm run dev` keeps PostgreSQL, Temporal and the stack file; DEV_DATA_DIR moves it. */
export const dataDir = (env: NodeJS.ProcessEnv) =>
  path.resolve(env.DEV_DATA_DIR ?? path.join(repoRoot(), '.data'));

export const stackFile = (dir: string) => path.join(dir, 'dev-stack.json');

/** What a running `npm run dev` publishes so `npm run admin` (and tests) can reach the same stack. */
export type DevStack = {
  pid: number;
  /** `dev`: one process and the Temporal dev server; `cluster`: the real server, two APIs, two workers. */
  engine?: 'dev' | 'cluster';
  apiUrl: string;
  /** Every API process's URL (`npm run cluster` runs two); `apiUrl` is the first. */
  apiUrls?: string[];
  /** Where people reach the stack from outside: the links it emails (quotes, unsubscribe) are built on it. */
  publicUrl?: string;
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl?: string;
  temporalNamespace: string;
  temporalTaskQueue: string;
  children: { postgres?: number; temporal?: number; apis?: number[]; workers?: number[] };
  /** The version of the worker the stack runs (`<deployment>:<build id>`); a rollout changes it. */
  workerVersion?: string;
  /** Where `npm run cluster -- roll` asks the running cluster to roll its workers (tooling/cluster-roll.ts). */
  control?: { url: string; token: string };
  /**
   * How the stack sends mail, so that `mail dns` describes the key it signs with. The relay's URL
   * carries no credentials: the CLI sends nothing.
   */
  mail?: {
    smtpUrl: string;
    from: string;
    dkim?: { domain: string; selector: string; privateKeyFile: string };
  };
};

function readDevStack(env: NodeJS.ProcessEnv): DevStack | undefined {
  const file = stackFile(dataDir(env));
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as DevStack;
}

/**
 * The environment for a tool run beside `npm run dev`: explicit variables win, the stack file fills
 * in the rest, so the admin CLI needs no flags. Without the file (a deployment) nothing changes.
 */
export function envWithDevStack(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const stack = env.DATABASE_URL ? undefined : readDevStack(env);
  if (!stack) return env;
  return {
    NODE_ENV: 'development',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    DATABASE_URL: stack.databaseUrl,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    TEMPORAL_NAMESPACE: stack.temporalNamespace,
    TEMPORAL_TASK_QUEUE: stack.temporalTaskQueue,
    ...(stack.publicUrl && { PUBLIC_URL: stack.publicUrl }),
    ...(stack.mail && { SMTP_URL: stack.mail.smtpUrl, MAIL_FROM: stack.mail.from }),
    ...(stack.mail?.dkim && {
      DKIM_DOMAIN: stack.mail.dkim.domain,
      DKIM_SELECTOR: stack.mail.dkim.selector,
      DKIM_PRIVATE_KEY_FILE: stack.mail.dkim.privateKeyFile,
    }),
    ...env,
  };
}
