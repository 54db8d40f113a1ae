import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../infra/config';
import { createLogger } from '../infra/logger';
import { onShutdown } from '../infra/shutdown';
import { createStops, labelled } from '../tooling/cleanup';
import { writeDevStack } from '../tooling/dev-stack';
import { dataDir, stackFile } from '../tooling/paths';
import { freePort } from '../tooling/processes';
import { startMailCatcher } from '../tooling/mail-catcher';
import { startSmsSink } from '../tooling/sms-sink';
import { startStack } from '../tooling/stack';
import { seedDemo } from './seed-demo';

/**
 * `npm run dev`: the whole stack in one process tree. PostgreSQL and the Temporal dev server keep
 * their data under .data/ (or DEV_DATA_DIR) unless DATABASE_URL / TEMPORAL_ADDRESS point elsewhere.
 */
const log = createLogger('dev', 'info');
const dir = dataDir();
const stops = createStops(log);
// Pushed first so it runs last: while the file is there, what it names may still be running.
stops.push(async () => rmSync(stackFile(dir), { force: true }));

async function main() {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'development',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    ...process.env,
  };
  onShutdown(log, stops.stopAll);

  // Mail and SMS really leave, to local catchers with pages to read them, unless real ones are set.
  const mail = env.SMTP_URL ? undefined : await startMailCatcher(stops, path.join(dir, 'mail'));
  if (mail) {
    env.SMTP_URL = mail.smtpUrl;
    env.MAIL_FROM ??= 'hello@leads.localhost';
  }
  const sms = env.SMS_ACCOUNT_SID
    ? undefined
    : await startSmsSink({ accountSid: 'ACdev', authToken: randomBytes(16).toString('hex') });
  if (sms) {
    stops.push(labelled('the SMS sink', sms.stop));
    Object.assign(env, {
      SMS_API_URL: sms.url,
      SMS_ACCOUNT_SID: 'ACdev',
      SMS_AUTH_TOKEN: sms.authToken,
      SMS_FROM: '+15550000000',
    });
  }

  // Prometheus's usual ports for the two metrics pages, or free ones when another stack holds them.
  env.METRICS_PORT ??= String(await freePort(9464));
  env.WORKER_METRICS_PORT ??= String(await freePort(9465));

  const {
    postgres: pg,
    temporal,
    config,
    db,
    api,
    worker,
  } = await startStack({
    log,
    stops,
    env,
    postgres: env.DATABASE_URL ? undefined : { dataDir: path.join(dir, 'pg'), database: 'leads' },
    database: {},
    temporal: env.TEMPORAL_ADDRESS
      ? undefined
      : {
          dbFile: path.join(dir, 'temporal', 'temporal.db'),
          port: await freePort(Number(env.TEMPORAL_PORT ?? 7233)),
          uiPort: await freePort(Number(env.TEMPORAL_UI_PORT ?? 8233)),
        },
    worker: true,
    api: true,
  });

  writeDevStack(dir, {
    pid: process.pid,
    apiUrl: api.url,
    databaseUrl: config.databaseUrl,
    temporalAddress: config.temporalAddress,
    temporalUiUrl: temporal?.uiUrl,
    temporalNamespace: config.temporalNamespace,
    temporalTaskQueue: config.temporalTaskQueue,
    children: { postgres: pg?.pid, temporal: temporal?.pid },
  });
  const demo = await seedDemo(db);
  const lines = [
    '',
    'Lead service is running (Ctrl+C stops everything).',
    `  API base URL:     ${api.url}/api/v1`,
    `  Temporal Web UI:  ${temporal?.uiUrl ?? `(external Temporal at ${config.temporalAddress})`}`,
    `  Mail sent:        ${mail ? `${mail.webUrl}   (MailDev; SMTP ${mail.smtpUrl})` : `via ${env.SMTP_URL?.replace(/\/\/[^@/]*@/, '//')}`}`,
    `  SMS sent:         ${sms ? `${sms.url}   (local provider)` : `via ${env.SMS_API_URL ?? 'https://api.twilio.com'}`}`,
    `  API metrics:      ${api.metricsUrl}`,
    `  Worker metrics:   ${worker.metricsUrl}   (with the Temporal SDK's)`,
    `  Data:             ${dir}`,
    '',
    `Demo workspace:     ${demo.workspace.name} (${demo.workspace.id})`,
    `  admin member:     ${demo.adminEmail}`,
    demo.key
      ? `  API key:          ${demo.key}   (shown once; every scope)`
      : '  API key:          shown on first run only; make another with: npm run -s admin -- key create ...',
    '',
    `  curl -H "Authorization: Bearer ${demo.key ?? '<key>'}" ${api.url}/api/v1/me`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  log.info('ready', {
    api_url: api.url,
    temporal_ui_url: temporal?.uiUrl ?? null,
    api_metrics_url: api.metricsUrl,
    worker_metrics_url: worker.metricsUrl,
  });
}

main().catch(async (err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err instanceof Error ? err.message : err);
  await stops.stopAll();
  process.exit(1);
});
