import { existsSync } from 'node:fs';
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
export const dataDir = (env: NodeJS.ProcessEnv = process.env) =>
  path.resolve(env.DEV_DATA_DIR ?? path.join(repoRoot(), '.data'));

export const stackFile = (dir: string) => path.join(dir, 'dev-stack.json');
