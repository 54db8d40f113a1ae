import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';

let installed = false;

/** Quiets the SDK's own logging (bundle stats, state changes) to warnings; once per process. */
export function installWorkerLogging(level: LogLevel = 'WARN'): void {
  if (installed) return;
  installed = true;
  Runtime.install({ logger: new DefaultLogger(level) });
}
