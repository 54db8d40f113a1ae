import { ServerResponse } from 'node:http';
import { WorkflowClient } from '@temporalio/client';

/**
 * The crash-safety suites' one fault hook (chaos/, test/e2e/webhook-crash.test.ts). Production code
 * carries no fault seam: a suite preloads this module into the process it means to crash,
 *
 *   node --import tsx --import ./tooling/fault-hooks.ts api/main.ts      (`faultHookArgs()`)
 *
 * and it wraps what the process already does, armed by one environment variable each:
 * - `API_CRASH_AFTER_COMMIT=<n>`: the API dies by SIGKILL once the nth `POST /api/v1/leads` has
 *   committed and is answered 201, before the answer's first byte leaves (refused in production);
 * - `RELAY_CRASH_AT=before-start`: the worker exits 86 at its first workflow start, after the relay
 *   read the due rows and before Temporal hears of it;
 * - `RELAY_CRASH_AT=before-mark`: the worker exits 87 once Temporal accepted its first start, before
 *   the relay records it as started.
 * Without either variable it changes nothing.
 */

const crashAfterCommit = Number(process.env.API_CRASH_AFTER_COMMIT) || undefined;
if (crashAfterCommit) {
  if (process.env.NODE_ENV === 'production')
    throw new Error('API_CRASH_AFTER_COMMIT is a test fault and is refused in production');
  let created = 0;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its own `this` below
  const writeHead = ServerResponse.prototype.writeHead;
  // Koa answers through `res.end`, which writes the head first: the intake has committed by then.
  ServerResponse.prototype.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    const status = typeof args[0] === 'number' ? args[0] : this.statusCode;
    const { method, url } = this.req;
    if (method === 'POST' && url?.split('?')[0] === '/api/v1/leads' && status === 201)
      if (++created === crashAfterCommit) process.kill(process.pid, 'SIGKILL');
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as typeof writeHead;
}

const relayCrashAt = process.env.RELAY_CRASH_AT;
if (relayCrashAt) {
  const codes: Record<string, number> = { 'before-start': 86, 'before-mark': 87 };
  const code = codes[relayCrashAt];
  if (code === undefined) throw new Error(`RELAY_CRASH_AT must be before-start or before-mark`);
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its own `this` below
  const start = WorkflowClient.prototype.start;
  WorkflowClient.prototype.start = async function (this: WorkflowClient, ...args: Parameters<typeof start>) {
    if (relayCrashAt === 'before-mark') await start.apply(this, args);
    process.exit(code);
  } as typeof start;
}
