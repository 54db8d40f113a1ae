import { writeFileSync } from 'node:fs';
import { stackFile, type DevStack } from '../infra/stack-file';

export type { DevStack };

/** Publishes the running stack for `npm run admin` and the tests (read by infra/stack-file.ts). */
export function writeDevStack(dir: string, stack: DevStack): void {
  writeFileSync(stackFile(dir), JSON.stringify(stack, null, 2) + '\n', { mode: 0o600 });
}
