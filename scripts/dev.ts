import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../infra/config';
import { createLogger } from '../infra/logger';
import { onShutdown } from '../infra/shutdown';
import { createStops, labelled } from '../tooling/cleanup';
import { claimDataDir, heldMessage } from '../tooling/dev-lock';
import { writeDevStack } from '../tooling/dev-stack';
import { devDkimKey } from '../tooling/dkim-key';
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

async function main() {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'development',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    ...process.env,
  };
  // Before anything starts: the data folder is this run's alone, and the API's port is free.
  const claim = claimDataDir(dir);
  if ('heldBy' in claim) refuse(heldMessage(dir, claim.heldBy));
  const port = Number(env.PORT ?? 3000);
  if ((await freePort(port)) !== port) {
    claim.release();
    refuse(
      `Port ${port} is in use (PORT): stop what listens there, or set PORT to another. Nothing was started.`,
    );
  }
  onShutdown(log, stops.stopAll);
  // Pushed first so they run last: while the file is there, what it names may still be running.
  stops.push(async () => claim.release());
  stops.push(async () => rmSync(stackFile(dir), { force: true }));

  // Mail and SMS really leave, to local catchers with pages to read them, unless real ones are set.
  const mail = env.SMTP_URL ? undefined : await startMailCatcher(stops, path.join(dir, 'mail'));
  if (mail) {
    env.SMTP_URL = mail.smtpUrl;
    env.MAIL_FROM ??= 'hello@leads.localhost';
  }
  // Signed as production mail is, with a key made once and kept with the data, unless one is given.
  if (env.MAIL_FROM && !env.DKIM_SELECTOR && !env.DKIM_PRIVATE_KEY_FILE) {
    const key = devDkimKey(dir);
    Object.assign(env, { DKIM_SELECTOR: key.selector, DKIM_PRIVATE_KEY_FILE: key.file });
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
    publicUrl: config.publicUrl,
    databaseUrl: config.databaseUrl,
    temporalAddress: config.temporalAddress,
    temporalUiUrl: temporal?.uiUrl,
    temporalNamespace: config.temporalNamespace,
    temporalTaskQueue: config.temporalTaskQueue,
    children: { postgres: pg?.pid, temporal: temporal?.pid },
    ...(config.smtp && {
      mail: {
        smtpUrl: withoutCredentials(config.smtp.url),
        from: config.smtp.from,
        ...(config.smtp.dkim && {
          dkim: {
            domain: config.smtp.dkim.domain,
            selector: config.smtp.dkim.selector,
            privateKeyFile: path.resolve(env.DKIM_PRIVATE_KEY_FILE!),
          },
        }),
      },
    }),
  });
  const dkim = config.smtp?.dkim;
  const demo = await seedDemo(db);
  const lines = [
    '',
    'Lead service is running (Ctrl+C stops everything).',
    `  API base URL:     ${api.url}/api/v1`,
    `  Temporal Web UI:  ${temporal?.uiUrl ?? `(external Temporal at ${config.temporalAddress})`}`,
    `  Mail sent:        ${mail ? `${mail.webUrl}   (MailDev; SMTP ${mail.smtpUrl})` : `via ${env.SMTP_URL?.replace(/\/\/[^@/]*@/, '//')}`}`,
    dkim
      ? `  Mail signed:      DKIM ${dkim.selector}._domainkey.${dkim.domain}   (records: npm run -s admin -- mail dns --domain ${dkim.domain})`
      : '  Mail signed:      no (set DKIM_SELECTOR and DKIM_PRIVATE_KEY_FILE)',
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

/** The relay's URL as the admin CLI may keep it: it sends nothing, so it needs no password. */
function withoutCredentials(url: string): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return u.toString();
}

/** Refuses to start: says why and leaves at once, touching nothing another run owns. */
function refuse(message: string): never {
  process.stderr.write(message + '\n');
  process.exit(1);
}

main().catch(async (err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err instanceof Error ? err.message : err);
  await stops.stopAll();
  process.exit(1);
});
