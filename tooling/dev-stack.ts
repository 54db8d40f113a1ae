import { writeFileSync } from 'node:fs';
import { stackFile, type DevStack } from '../infra/dev-stack';

export type { DevStack };

/** Publishes the running stack for `npm run admin` and the tests (read by infra/dev-stack.ts). */
export function writeDevStack(dir: string, stack: DevStack): void {
  writeFileSync(stackFile(dir), JSON.stringify(stack, null, 2) + '\n', { mode: 0o600 });
}
