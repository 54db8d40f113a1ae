import { DefaultLogger, Runtime, type LogLevel as SdkLevel } from '@temporalio/worker';
import { freePort } from '../infra/free-port';
import { createLogger, type Logger, type LogLevel } from '../infra/logger';

const LEVELS: Record<SdkLevel, LogLevel> = {
  TRACE: 'debug',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

let installing: Promise<void> | undefined;
let sdkMetricsUrl: string | undefined;

/**
 * Sets up the Temporal SDK's runtime, once per process as the SDK allows, before its first
 * connection. Its lines go through `log`, so they are JSON and redacted like ours; an activity's or a
 * workflow's lines carry its `workflowId` and `activityId`. From `level` up: below WARN the SDK is
 * chatty (bundle sizes, state changes). Its metrics go to the SDK's own Prometheus exporter, on a free
 * loopback port: the worker's /metrics page appends them (sdkMetricsText), so operators scrape one port.
 */
export function installWorkerRuntime(
  log: Logger = createLogger('temporal', 'warn'),
  level: SdkLevel = 'WARN',
): Promise<void> {
  installing ??= freePort().then((port) => {
    Runtime.install({
      logger: new DefaultLogger(level, ({ level: l, message, meta }) => log[LEVELS[l]](message, meta)),
      telemetryOptions: {
        metrics: {
          // Prometheus's conventions: counters end in _total, durations are seconds named so.
          prometheus: {
            bindAddress: `127.0.0.1:${port}`,
            countersTotalSuffix: true,
            unitSuffix: true,
            useSecondsForDurations: true,
          },
        },
      },
    });
    sdkMetricsUrl = `http://127.0.0.1:${port}/metrics`;
  });
  return installing;
}

/** The SDK exporter's page, or nothing when this process's runtime has none or it does not answer in time. */
export async function sdkMetricsText(): Promise<string> {
  if (!sdkMetricsUrl) return '';
  const res = await fetch(sdkMetricsUrl, { signal: AbortSignal.timeout(2_000) });
  return res.ok ? res.text() : '';
}
