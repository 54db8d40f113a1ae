import { randomBytes } from 'node:crypto';

// Variables the API and the worker read (infra/config.ts): the parent shell's values must not leak
// into a process under test, so each bench sets every one it means and inherits none.
const SERVICE_CONFIG_VARS = [
  'NODE_ENV',
  'HOST',
  'PORT',
  'METRICS_PORT',
  'WORKER_METRICS_PORT',
  'DATABASE_URL',
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_TASK_QUEUE',
  'SECRETS_KEY',
  'TRUST_PROXY',
  'WEBHOOK_ALLOW_PRIVATE_TARGETS',
  'WEBHOOK_ALLOW_PRIVATE_TARGETS_IN_PRODUCTION',
  'TRUST_PROXY_HOPS',
  'MCP_ALLOWED_ORIGINS',
  'RATE_LIMIT_PER_MINUTE',
  'LOG_LEVEL',
  'REQUEST_TIMEOUT_MS',
  'AUDIT_QUEUE_LIMIT',
  'REFUSED_PER_MINUTE',
  'DB_CONNECT_TIMEOUT_MS',
  'DB_STATEMENT_TIMEOUT_MS',
  'DB_IDLE_IN_TRANSACTION_TIMEOUT_MS',
  'WEBHOOK_ENDPOINT_CONCURRENCY',
  'WORKER_ATTEMPT_SLOTS',
  'WEBHOOK_SEARCH_ATTRIBUTES',
  'WORKFLOW_BUNDLE',
  'MAINTENANCE_SCHEDULES',
  'IDEMPOTENCY_RETENTION_HOURS',
  'AUDIT_RETENTION_DAYS',
  'EVENT_RETENTION_DAYS',
  'PUBLIC_URL',
  'SMTP_URL',
  'MAIL_FROM',
  'SMS_API_URL',
  'SMS_ACCOUNT_SID',
  'SMS_AUTH_TOKEN',
  'SMS_FROM',
];

/**
 * This process's environment less every service setting, plus the ones given. The metrics pages take
 * free ports unless given: a production-mode process would otherwise claim 9464/9465, which a stack
 * already running on this machine may hold.
 */
export function serviceEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of SERVICE_CONFIG_VARS) delete env[name];
  return { ...env, METRICS_PORT: '0', WORKER_METRICS_PORT: '0', ...settings };
}

/** The API as the API benches run it: production mode, a fresh secrets key, warnings only. */
export function apiBenchEnv(databaseUrl: string): NodeJS.ProcessEnv {
  return serviceEnv({
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    // Only validated as host:port: the API does not connect to Temporal.
    TEMPORAL_ADDRESS: '127.0.0.1:7233',
    SECRETS_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
  });
}
