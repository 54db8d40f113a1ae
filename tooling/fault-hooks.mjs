// The crash-safety suites' one fault hook (chaos/, test/e2e/webhook-crash.test.ts). Production code
// carries no fault seam: a suite preloads this module into the process it means to crash,
//
//   node --import tsx --import <repo>/tooling/fault-hooks.mjs api/main.ts      (faultHookArgs())
//
// and it wraps what the process already does, armed by one environment variable each:
// - API_CRASH_AFTER_COMMIT=<n>: the API dies by SIGKILL once the nth `POST /api/v1/leads` has
//   committed and is answered 201, before the answer's first byte leaves (refused in production);
// - RELAY_CRASH_AT=before-start: the worker exits 86 at its first workflow start, after the relay
//   read the due rows and before Temporal hears of it;
// - RELAY_CRASH_AT=before-mark: the worker exits 87 once Temporal accepted its first start, before
//   the relay records it as started.
// Without either variable it changes nothing. Plain JavaScript: Node also preloads it into the
// worker's workflow threads, where tsx does not transform TypeScript; it acts in the main thread only.
import { isMainThread } from 'node:worker_threads';

const crashAfterCommit = Number(process.env.API_CRASH_AFTER_COMMIT) || undefined;
if (crashAfterCommit && isMainThread) {
  if (process.env.NODE_ENV === 'production')
    throw new Error('API_CRASH_AFTER_COMMIT is a test fault and is refused in production');
  const { ServerResponse } = await import('node:http');
  let created = 0;
  const writeHead = ServerResponse.prototype.writeHead;
  // Koa answers through `res.end`, which writes the head first: the intake has committed by then.
  ServerResponse.prototype.writeHead = function (...args) {
    const status = typeof args[0] === 'number' ? args[0] : this.statusCode;
    const { method, url } = this.req;
    if (method === 'POST' && url?.split('?')[0] === '/api/v1/leads' && status === 201)
      if (++created === crashAfterCommit) process.kill(process.pid, 'SIGKILL');
    return writeHead.apply(this, args);
  };
}

const relayCrashAt = process.env.RELAY_CRASH_AT;
if (relayCrashAt && isMainThread) {
  const code = { 'before-start': 86, 'before-mark': 87 }[relayCrashAt];
  if (code === undefined) throw new Error('RELAY_CRASH_AT must be before-start or before-mark');
  // The package is CommonJS: this is the very module the worker's code requires.
  const { WorkflowClient } = await import('@temporalio/client');
  const start = WorkflowClient.prototype.start;
  WorkflowClient.prototype.start = async function (...args) {
    if (relayCrashAt === 'before-mark') await start.apply(this, args);
    process.exit(code);
  };
}
