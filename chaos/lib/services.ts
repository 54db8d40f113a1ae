import path from 'node:path';
import { serviceEnv } from '../../bench/lib/service-env';
import { waitFor } from '../../tooling/processes';
import { spawnEntry, type Child } from './children';
import { API_DEADLINE_MS } from './settings';

export type ServiceSettings = {
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  secretsKey: Buffer;
  apiPort: number;
  /** The worker's Prometheus page (a fixed port, so the harness can read it across restarts). */
  workerMetricsPort: number;
  logDir: string;
  /** Told apart in log file names when there are two of each process (`api-2.log`). */
  instance?: number;
  /** The SMTP sink every outbound email goes to, and the address it is sent from. */
  smtpUrl: string;
  mailFrom: string;
};

// Service settings a parent shell could leak in that serviceEnv does not clear.
const ALSO_CLEARED = ['DB_POOL_SIZE', 'RELAY_CRASH_AT', 'API_CRASH_AFTER_COMMIT'];

/**
 * How the API and the worker are started, as processes of their own (`node --import tsx`) with every
 * service setting given and none inherited. `extra` carries a fault hook for one start.
 */
export function serviceLaunchers(s: ServiceSettings) {
  const apiUrl = `http://127.0.0.1:${s.apiPort}`;
  const logFile = (name: string) => path.join(s.logDir, `${name}${s.instance ? `-${s.instance}` : ''}.log`);
  const env = (settings: Record<string, string>) => {
    const base = serviceEnv({});
    for (const name of ALSO_CLEARED) delete base[name];
    return {
      ...base,
      DATABASE_URL: s.databaseUrl,
      TEMPORAL_ADDRESS: s.temporalAddress,
      TEMPORAL_TASK_QUEUE: s.taskQueue,
      SECRETS_KEY: s.secretsKey.toString('base64'),
      ...settings,
    };
  };
  const apiEnv = (extra: Record<string, string>) =>
    env({
      // API_CRASH_AFTER_COMMIT is refused in production.
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(s.apiPort),
      REQUEST_TIMEOUT_MS: String(API_DEADLINE_MS),
      // One key carries the whole load; its per-minute limit is not what is under test.
      RATE_LIMIT_PER_MINUTE: '1000000',
      LOG_LEVEL: 'warn',
      ...extra,
    });
  const workerEnv = (extra: Record<string, string>) =>
    env({
      NODE_ENV: 'production',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // The receivers are on loopback; production refuses that unless told, as here, on purpose.
      WEBHOOK_ALLOW_PRIVATE_TARGETS_IN_PRODUCTION: 'true',
      // Info is the readiness line and little else.
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      WORKER_METRICS_PORT: String(s.workerMetricsPort),
      SMTP_URL: s.smtpUrl,
      MAIL_FROM: s.mailFrom,
      ...extra,
    });

  /** The API, once it answers HTTP; a start that fails is stopped. */
  const launchApi = async (extra: Record<string, string>): Promise<Child> => {
    const child = spawnEntry('api', 'api/main.ts', apiEnv(extra), logFile('api'));
    try {
      await Promise.race([
        child.exit.then((e) =>
          Promise.reject(new Error(`the API exited (${e.code ?? e.signal}) while starting`)),
        ),
        // Any HTTP answer will do (401 without a key): it is listening.
        waitFor('the API to answer', async () => (await fetch(`${apiUrl}/api/v1/me`)).status > 0, 60_000),
      ]);
    } catch (err) {
      await child.stop();
      throw err;
    }
    return child;
  };

  /** A worker process, not waited for: a start with a crash hook armed is not meant to serve. */
  const spawnWorker = (extra: Record<string, string>): Child =>
    spawnEntry('worker', 'worker/main.ts', workerEnv(extra), logFile('worker'));

  /** The worker, once it polls and its relay listens; a start that fails is stopped. */
  const launchWorker = async (extra: Record<string, string>): Promise<Child> => {
    const child = spawnWorker(extra);
    try {
      // worker/run.ts says this once the worker polls and the relay listens.
      await child.lineMatching(/"msg":"worker running"/, 120_000);
    } catch (err) {
      await child.stop();
      throw err;
    }
    return child;
  };

  return {
    apiUrl,
    workerMetricsUrl: `http://127.0.0.1:${s.workerMetricsPort}/metrics`,
    workerLog: logFile('worker'),
    launchApi,
    launchWorker,
    spawnWorker,
  };
}
