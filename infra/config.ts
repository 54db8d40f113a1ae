import { createPrivateKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import * as yup from 'yup';

type AppEnv = 'development' | 'test' | 'production';

export type Config = {
  env: AppEnv;
  host: string;
  port: number;
  /** Where the API serves its Prometheus metrics (on HOST, apart from the API); 0: any free port. */
  metricsPort: number;
  /** The same for the worker, whose page also carries the Temporal SDK's own series. */
  workerMetricsPort: number;
  databaseUrl: string;
  temporalAddress: string;
  temporalNamespace: string;
  temporalTaskQueue: string;
  /** 32 bytes; encrypts webhook signing secrets at rest. */
  secretsKey: Buffer;
  trustProxy: boolean;
  /** How many proxies in front append to X-Forwarded-For (0: the header is ignored). */
  trustedProxyHops: number;
  webhookAllowPrivateTargets: boolean;
  rateLimitPerMinute: number;
  dbPoolSize: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Browser origins (besides loopback) the assistant endpoint accepts; every other Origin is refused. */
  mcpAllowedOrigins: string[];
  /** Attempts one worker process makes to one endpoint at once; more wait their turn. */
  webhookEndpointConcurrency: number;
  /** Attempts (local activities) one worker process runs at once; at most the workflow cache size. */
  workerAttemptSlots: number;
  /** A workflow bundle built ahead (the image builds one); without it the worker bundles at start. */
  workflowBundle?: string;
  /** The longest a request may take before it is answered 503. */
  requestTimeoutMs: number;
  db: { connectTimeoutMs: number; statementTimeoutMs: number; idleInTransactionTimeoutMs: number };
  /** Requests waiting for their audit row; past it the API sheds load with 503. */
  auditQueueLimit: number;
  /** Refused requests (no key, unknown key, refused address) allowed per client address per minute. */
  refusedPerMinute: number;
  /** Requests per client address per minute on a quote's public page (view, sign, decline). */
  quotePagePerMinute: number;
  /** Requests per client address per minute on unsubscribe links. */
  unsubscribePerMinute: number;
  /** Provider webhooks (SMS, inbound email) per workspace per minute, once their proof holds. */
  hooksPerMinute: number;
  retention: { idempotencyHours: number; auditDays: number; eventDays: number };
  /** The worker creates the reconcile and retention schedules (off in tests that run many workers). */
  maintenanceSchedules: boolean;
  /** Where people and providers reach the service from outside: unsubscribe links, provider webhooks. */
  publicUrl: string;
  /**
   * Outbound email: an SMTP server (`smtp://user:pass@host:port`, `smtps://` for TLS) and the sender;
   * with a DKIM key, every message is signed for `domain` (MAIL_FROM's domain or a parent of it).
   */
  smtp?: { url: string; from: string; dkim?: { domain: string; selector: string; privateKey: KeyObject } };
  /** SMS and WhatsApp: an HTTP provider shaped like Twilio's Messages API (it also signs inbound webhooks). */
  sms?: { url: string; accountSid: string; authToken: string; from: string };
};

// A fixed key so a fresh checkout runs with no setup; refused outside development and test.
/** Workflows a worker keeps in memory; attempts in flight must fit in it, or busy ones get evicted mid-attempt. */
export const WORKFLOW_CACHE_SIZE = 100;
/**
 * Workflow tasks a worker runs at once, fewer than the workflows it caches: a task that arrives with the
 * cache full then always finds an idle workflow to evict, never one whose attempt is in flight.
 */
export const WORKFLOW_TASK_SLOTS = 75;

const DEV_SECRETS_KEY = Buffer.alloc(32, 'dev-only-secrets-key-do-not-use!').toString('base64');

const DNS_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const DOMAIN_NAME =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Receivers ignore RSA signatures with shorter keys (RFC 8301). */
const DKIM_MIN_BITS = 1024;

const booleanString = (name: string) =>
  yup.string().oneOf(['true', 'false'], `${name} must be "true" or "false"`).default('false');

const schema = yup.object({
  NODE_ENV: yup
    .string()
    .oneOf(['development', 'test', 'production'], 'NODE_ENV must be development, test or production')
    .default('production'),
  HOST: yup.string().optional(),
  PORT: yup
    .number()
    .typeError('PORT must be a number')
    .integer('PORT must be an integer')
    .min(0, 'PORT must be between 0 and 65535')
    .max(65535, 'PORT must be between 0 and 65535')
    .default(3000),
  METRICS_PORT: intSetting('METRICS_PORT', 0, 65535, undefined),
  WORKER_METRICS_PORT: intSetting('WORKER_METRICS_PORT', 0, 65535, undefined),
  DATABASE_URL: yup
    .string()
    .required('DATABASE_URL is required (postgres://user:password@host:port/database)')
    .matches(/^postgres(ql)?:\/\//, 'DATABASE_URL must start with postgres:// or postgresql://'),
  TEMPORAL_ADDRESS: yup
    .string()
    .required('TEMPORAL_ADDRESS is required (host:port of the Temporal frontend)')
    .matches(/^[^\s:/]+:\d+$/, 'TEMPORAL_ADDRESS must be host:port'),
  TEMPORAL_NAMESPACE: yup.string().default('default'),
  TEMPORAL_TASK_QUEUE: yup.string().default('lead-service'),
  SECRETS_KEY: yup.string().optional(),
  TRUST_PROXY: booleanString('TRUST_PROXY'),
  TRUST_PROXY_HOPS: yup
    .number()
    .typeError('TRUST_PROXY_HOPS must be a number')
    .integer('TRUST_PROXY_HOPS must be an integer')
    .min(1, 'TRUST_PROXY_HOPS must be between 1 and 10')
    .max(10, 'TRUST_PROXY_HOPS must be between 1 and 10')
    .optional(),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: booleanString('WEBHOOK_ALLOW_PRIVATE_TARGETS'),
  WEBHOOK_ALLOW_PRIVATE_TARGETS_IN_PRODUCTION: booleanString('WEBHOOK_ALLOW_PRIVATE_TARGETS_IN_PRODUCTION'),
  DB_POOL_SIZE: yup
    .number()
    .typeError('DB_POOL_SIZE must be a number')
    .integer('DB_POOL_SIZE must be an integer')
    .min(1, 'DB_POOL_SIZE must be between 1 and 200')
    .max(200, 'DB_POOL_SIZE must be between 1 and 200')
    .default(20),
  RATE_LIMIT_PER_MINUTE: yup
    .number()
    .typeError('RATE_LIMIT_PER_MINUTE must be a number')
    .integer('RATE_LIMIT_PER_MINUTE must be an integer')
    .min(1, 'RATE_LIMIT_PER_MINUTE must be at least 1')
    .default(300),
  MCP_ALLOWED_ORIGINS: yup
    .string()
    .default('')
    .test(
      'origins',
      'MCP_ALLOWED_ORIGINS must be comma-separated origins such as https://app.example.com',
      (v) =>
        v
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean)
          .every((o) => /^https?:\/\/[^/\s]+$/.test(o)),
    ),
  WEBHOOK_ENDPOINT_CONCURRENCY: intSetting('WEBHOOK_ENDPOINT_CONCURRENCY', 1, 100, 10),
  WORKER_ATTEMPT_SLOTS: intSetting('WORKER_ATTEMPT_SLOTS', 1, WORKFLOW_TASK_SLOTS, 50),
  REQUEST_TIMEOUT_MS: intSetting('REQUEST_TIMEOUT_MS', 1_000, 120_000, 10_000),
  DB_CONNECT_TIMEOUT_MS: intSetting('DB_CONNECT_TIMEOUT_MS', 100, 60_000, 5_000),
  DB_STATEMENT_TIMEOUT_MS: intSetting('DB_STATEMENT_TIMEOUT_MS', 100, 600_000, 8_000),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: intSetting('DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', 100, 600_000, 10_000),
  AUDIT_QUEUE_LIMIT: intSetting('AUDIT_QUEUE_LIMIT', 10, 1_000_000, 5_000),
  REFUSED_PER_MINUTE: intSetting('REFUSED_PER_MINUTE', 1, 1_000_000, 60),
  QUOTE_PAGE_PER_MINUTE: intSetting('QUOTE_PAGE_PER_MINUTE', 1, 1_000_000, 30),
  UNSUBSCRIBE_PER_MINUTE: intSetting('UNSUBSCRIBE_PER_MINUTE', 1, 1_000_000, 30),
  HOOKS_PER_MINUTE: intSetting('HOOKS_PER_MINUTE', 1, 1_000_000, 1_200),
  IDEMPOTENCY_RETENTION_HOURS: intSetting('IDEMPOTENCY_RETENTION_HOURS', 24, 24 * 365, 48),
  AUDIT_RETENTION_DAYS: intSetting('AUDIT_RETENTION_DAYS', 1, 3_650, 365),
  EVENT_RETENTION_DAYS: intSetting('EVENT_RETENTION_DAYS', 2, 3_650, 30),
  MAINTENANCE_SCHEDULES: booleanString('MAINTENANCE_SCHEDULES').default('true'),
  LOG_LEVEL: yup
    .string()
    .oneOf(['debug', 'info', 'warn', 'error'], 'LOG_LEVEL must be debug, info, warn or error')
    .default('info'),
  WORKFLOW_BUNDLE: yup.string().optional(),
  PUBLIC_URL: yup
    .string()
    .matches(/^https?:\/\/[^\s]+$/, 'PUBLIC_URL must be an http(s) URL')
    .optional(),
  SMTP_URL: yup
    .string()
    .matches(/^smtps?:\/\/[^\s]+$/, 'SMTP_URL must start with smtp:// or smtps://')
    .optional(),
  MAIL_FROM: yup
    .string()
    .matches(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'MAIL_FROM must be an email address')
    .optional(),
  DKIM_SELECTOR: yup
    .string()
    .matches(DNS_LABEL, 'DKIM_SELECTOR must be a DNS label: letters, digits and inner hyphens, at most 63')
    .optional(),
  DKIM_PRIVATE_KEY_FILE: yup.string().optional(),
  DKIM_DOMAIN: yup
    .string()
    .lowercase()
    .matches(DOMAIN_NAME, 'DKIM_DOMAIN must be a domain name such as example.com')
    .optional(),
  SMS_API_URL: yup
    .string()
    .matches(/^https?:\/\/[^\s]+$/, 'SMS_API_URL must be an http(s) URL')
    .optional(),
  SMS_ACCOUNT_SID: yup.string().optional(),
  SMS_AUTH_TOKEN: yup.string().optional(),
  SMS_FROM: yup
    .string()
    .matches(/^\+[1-9][0-9]{6,14}$/, 'SMS_FROM must be a number in E.164 form (+15551234567)')
    .optional(),
});

/** An integer setting within [min, max], with its default; the message names the variable. */
function intSetting<D extends number | undefined>(name: string, min: number, max: number, fallback: D) {
  const range = `${name} must be an integer between ${min} and ${max}`;
  return yup.number().typeError(range).integer(range).min(min, range).max(max, range).default(fallback);
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

function decodeSecretsKey(raw: string | undefined, env: AppEnv, problems: string[]): Buffer {
  if (raw === undefined || raw === '') {
    if (env !== 'production') return Buffer.from(DEV_SECRETS_KEY, 'base64');
    problems.push('SECRETS_KEY is required in production (32 random bytes, base64: openssl rand -base64 32)');
    return Buffer.alloc(0);
  }
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32) problems.push('SECRETS_KEY must be 32 bytes encoded as base64');
  return key;
}

/**
 * The DKIM key outbound mail is signed with, read now so that a bad one stops the start: nodemailer
 * sends a message unsigned, without a word, when its key cannot sign.
 */
function readDkimKey(
  parsed: { DKIM_SELECTOR?: string; DKIM_PRIVATE_KEY_FILE?: string; DKIM_DOMAIN?: string },
  smtp: { url?: string; from: string },
  problems: string[],
): NonNullable<Config['smtp']>['dkim'] {
  const { DKIM_SELECTOR: selector, DKIM_PRIVATE_KEY_FILE: file, DKIM_DOMAIN: named } = parsed;
  if (!selector && !file) {
    if (named) problems.push('DKIM_DOMAIN needs DKIM_SELECTOR and DKIM_PRIVATE_KEY_FILE to sign with');
    return undefined;
  }
  if (!selector || !file) {
    problems.push('DKIM_SELECTOR and DKIM_PRIVATE_KEY_FILE are needed together to sign outbound mail');
    return undefined;
  }
  if (!smtp.url)
    problems.push(
      'DKIM_SELECTOR and DKIM_PRIVATE_KEY_FILE sign mail sent through SMTP_URL, which is not set',
    );
  const fromDomain = smtp.from.split('@')[1]!.toLowerCase();
  const domain = named ?? fromDomain;
  // DMARC's relaxed alignment: the signing domain is the From domain or one of its parents.
  if (fromDomain !== domain && !fromDomain.endsWith(`.${domain}`))
    problems.push(
      `DKIM_DOMAIN (${domain}) must be MAIL_FROM's domain (${fromDomain}) or a parent of it, or receivers' DMARC checks will not count the signature`,
    );
  const privateKey = readPrivateKey(file, problems);
  return privateKey && { domain, selector, privateKey };
}

function readPrivateKey(file: string, problems: string[]): KeyObject | undefined {
  const generate = 'openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048';
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    problems.push(
      `DKIM_PRIVATE_KEY_FILE cannot be read (${file}): ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
    return undefined;
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    problems.push(
      `DKIM_PRIVATE_KEY_FILE (${file}) holds no unencrypted PEM private key; make one with: ${generate}`,
    );
    return undefined;
  }
  const type = key.asymmetricKeyType;
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (type === 'rsa' && bits >= DKIM_MIN_BITS) return key;
  problems.push(
    type === 'rsa'
      ? `DKIM_PRIVATE_KEY_FILE (${file}) is a ${bits}-bit RSA key; receivers ignore signatures under ${DKIM_MIN_BITS} bits. Use 2048: ${generate}`
      : `DKIM_PRIVATE_KEY_FILE (${file}) must be an RSA key, not ${type}; make one with: ${generate}`,
  );
  return undefined;
}

/** Reads and validates the environment; throws ConfigError naming every bad or missing variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const input = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  let parsed: yup.InferType<typeof schema>;
  try {
    parsed = schema.validateSync(input, { abortEarly: false, stripUnknown: true });
  } catch (err) {
    if (err instanceof yup.ValidationError) throw new ConfigError(err.errors);
    throw err;
  }
  const env = parsed.NODE_ENV;
  const problems: string[] = [];
  const secretsKey = decodeSecretsKey(parsed.SECRETS_KEY, env, problems);
  if (
    env === 'production' &&
    parsed.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true' &&
    parsed.WEBHOOK_ALLOW_PRIVATE_TARGETS_IN_PRODUCTION !== 'true'
  ) {
    problems.push(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS=true is refused in production: it lets webhooks reach internal services. ' +
        'Set WEBHOOK_ALLOW_PRIVATE_TARGETS_IN_PRODUCTION=true as well only if you mean it.',
    );
  }
  const smsSet = [parsed.SMS_ACCOUNT_SID, parsed.SMS_AUTH_TOKEN, parsed.SMS_FROM];
  if (smsSet.some(Boolean) && !smsSet.every(Boolean))
    problems.push('SMS_ACCOUNT_SID, SMS_AUTH_TOKEN and SMS_FROM are needed together to send SMS');
  const mailFrom = parsed.MAIL_FROM ?? 'no-reply@localhost.localdomain';
  const dkim = readDkimKey(parsed, { url: parsed.SMTP_URL, from: mailFrom }, problems);
  if (parsed.WORKFLOW_BUNDLE && !existsSync(parsed.WORKFLOW_BUNDLE))
    problems.push(`WORKFLOW_BUNDLE names no file (${parsed.WORKFLOW_BUNDLE}); unset it to bundle at start`);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    env,
    host: parsed.HOST ?? (env === 'production' ? '0.0.0.0' : '127.0.0.1'),
    port: parsed.PORT,
    // Tests run many APIs and workers side by side: each takes a free port unless told one.
    metricsPort: parsed.METRICS_PORT ?? (env === 'test' ? 0 : 9464),
    workerMetricsPort: parsed.WORKER_METRICS_PORT ?? (env === 'test' ? 0 : 9465),
    databaseUrl: parsed.DATABASE_URL,
    temporalAddress: parsed.TEMPORAL_ADDRESS,
    temporalNamespace: parsed.TEMPORAL_NAMESPACE,
    temporalTaskQueue: parsed.TEMPORAL_TASK_QUEUE,
    secretsKey,
    trustProxy: parsed.TRUST_PROXY === 'true' || parsed.TRUST_PROXY_HOPS !== undefined,
    trustedProxyHops: parsed.TRUST_PROXY_HOPS ?? (parsed.TRUST_PROXY === 'true' ? 1 : 0),
    webhookAllowPrivateTargets: parsed.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true',
    rateLimitPerMinute: parsed.RATE_LIMIT_PER_MINUTE,
    dbPoolSize: parsed.DB_POOL_SIZE,
    logLevel: parsed.LOG_LEVEL,
    mcpAllowedOrigins: parsed.MCP_ALLOWED_ORIGINS.split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    webhookEndpointConcurrency: parsed.WEBHOOK_ENDPOINT_CONCURRENCY,
    workerAttemptSlots: parsed.WORKER_ATTEMPT_SLOTS,
    workflowBundle: parsed.WORKFLOW_BUNDLE,
    requestTimeoutMs: parsed.REQUEST_TIMEOUT_MS,
    db: {
      connectTimeoutMs: parsed.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: parsed.DB_STATEMENT_TIMEOUT_MS,
      idleInTransactionTimeoutMs: parsed.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    },
    auditQueueLimit: parsed.AUDIT_QUEUE_LIMIT,
    refusedPerMinute: parsed.REFUSED_PER_MINUTE,
    quotePagePerMinute: parsed.QUOTE_PAGE_PER_MINUTE,
    unsubscribePerMinute: parsed.UNSUBSCRIBE_PER_MINUTE,
    hooksPerMinute: parsed.HOOKS_PER_MINUTE,
    retention: {
      idempotencyHours: parsed.IDEMPOTENCY_RETENTION_HOURS,
      auditDays: parsed.AUDIT_RETENTION_DAYS,
      eventDays: parsed.EVENT_RETENTION_DAYS,
    },
    maintenanceSchedules: parsed.MAINTENANCE_SCHEDULES !== 'false',
    publicUrl: parsed.PUBLIC_URL ?? `http://localhost:${parsed.PORT}`,
    ...(parsed.SMTP_URL && {
      smtp: { url: parsed.SMTP_URL, from: mailFrom, ...(dkim && { dkim }) },
    }),
    ...(parsed.SMS_ACCOUNT_SID &&
      parsed.SMS_AUTH_TOKEN &&
      parsed.SMS_FROM && {
        sms: {
          url: parsed.SMS_API_URL ?? 'https://api.twilio.com',
          accountSid: parsed.SMS_ACCOUNT_SID,
          authToken: parsed.SMS_AUTH_TOKEN,
          from: parsed.SMS_FROM,
        },
      }),
  };
}

/** Says loudly, at start-up, that a setting refused in production was forced on there. */
export function warnOfForcedSettings(config: Config, log: { error: (msg: string) => void }): void {
  if (config.env === 'production' && config.webhookAllowPrivateTargets)
    log.error(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS is on in production (forced): webhooks may reach private addresses',
    );
}
