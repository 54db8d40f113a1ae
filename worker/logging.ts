import { DefaultLogger, Runtime, type LogLevel as SdkLevel } from '@temporalio/worker';
import { createLogger, type Logger, type LogLevel } from '../infra/logger';

const LEVELS: Record<SdkLevel, LogLevel> = {
  TRACE: 'debug',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

let installed = false;

/**
 * Sends the Temporal SDK's own lines through `log`, so they are JSON and redacted like ours; an
 * activity's or a workflow's lines carry its `workflowId` and `activityId`. From `level` up: below
 * WARN the SDK is chatty (bundle sizes, state changes). Once per process, as the SDK runtime is.
 */
export function installWorkerLogging(
  log: Logger = createLogger('temporal', 'warn'),
  level: SdkLevel = 'WARN',
): void {
  if (installed) return;
  installed = true;
  Runtime.install({
    logger: new DefaultLogger(level, ({ level: l, message, meta }) => log[LEVELS[l]](message, meta)),
  });
}
