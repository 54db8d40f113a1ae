import { createPrivateKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { getDomain } from 'tldts';
import * as yup from 'yup';
import { DELIVERY_SEARCH_ATTRIBUTES, type DeliverySearchAttribute } from '../domain/kernel/search-attributes';
import { envWithDevStack } from './stack-file';

type AppEnv = 'development' | 'test' | 'production';

export type WorkerDeploymentSettings = {
  deploymentName: string;
  /** WORKER_BUILD_ID; unset, the worker names its version after its workflow code (worker/versioning.ts). */
  buildId?: string;
  /** `on-start`: a starting worker makes its version current; `by-rollout`: the rollout does. */
  setCurrent: 'on-start' | 'by-rollout';
};

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
  /** The search attributes each delivery workflow starts with (WEBHOOK_SEARCH_ATTRIBUTES); empty for `none`. */
  webhookSearchAttributes: readonly DeliverySearchAttribute[];
  /** A workflow bundle built ahead (the image builds one); without it the worker bundles at start. */
  workflowBundle?: string;
  /** The worker's Worker Deployment (docs/temporal.md, "Deploys"). */
  workerDeployment: WorkerDeploymentSettings;
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
  /** How long a member's console session lasts: unused, and at most. */
  consoleSessions: { idleMinutes: number; maxHours: number };
  /**
   * APPROVALS_OPERATOR_DECIDE: an operator may decide parked requests at the admin CLI in production
   * (`approval approve|reject --as`, break-glass, recorded as operator-asserted); outside production
   * they always may.
   */
  approvalsOperatorDecide: boolean;
  /**
   * Outbound email: an SMTP server (`smtp://user:pass@host:port`, `smtps://` for TLS) and the sender;
   * with a DKIM key, every message is signed for `domain` (MAIL_FROM's domain or a parent of it).
   */
  smtp?: {
    url: string;
    from: string;
    /**
     * The envelope sender's domain: each email leaves from `bounces+<id>.<mac>@<returnPathDomain>`, so
     * a bounce proves which email it is about (MAIL_RETURN_PATH_DOMAIN, MAIL_FROM's domain by default).
     */
    returnPathDomain: string;
    dkim?: { domain: string; selector: string; privateKey: KeyObject };
  };
  /**
   * Mailbox providers' feedback-loop domains (MAIL_FEEDBACK_DOMAINS): a complaint From one of them (or a
   * subdomain), DKIM-signed by it, is proven without a return path; none by default.
   */
  mailFeedbackDomains: string[];
  /** SMS and WhatsApp: an HTTP provider shaped like Twilio's Messages API (it also signs inbound webhooks). */
  sms?: { url: string; accountSid: string; authToken: string; from: string };
  /** Traces over OTLP (docs/observability.md, "Traces"); absent, no span is made. */
  tracing?: {
    /** The traces URL: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`. */
    url: string;
    protocol: OtlpProtocol;
    serviceName?: string;
    resourceAttributes: Record<string, string>;
  };
};

const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

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

const feedbackDomainList = (v: string) =>
  v
    .split(',')
    .map((d) => d.trim().replace(/\.$/, ''))
    .filter(Boolean);

const DELIVERY_ATTRIBUTE_NAMES: readonly string[] = DELIVERY_SEARCH_ATTRIBUTES.map((k) => k.name);

/** WEBHOOK_SEARCH_ATTRIBUTES's names: `none` is none. */
const deliveryAttributeNames = (v: string) =>
  v.trim().toLowerCase() === 'none'
    ? []
    : v
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean);

const booleanString = (name: string) =>
  yup.string().oneOf(['true', 'false'], `${name} must be "true" or "false"`).default('false');

/**
 * Every variable, each with what it means (`description`) and, where the default is not simply the
 * schema's own, the default as an operator sees it (`shown`); docs/reference/configuration.md is
 * generated from these (`npx tsx scripts/docs.ts`).
 */
export const configSchema = yup.object({
  NODE_ENV: yup
    .string()
    .oneOf(['development', 'test', 'production'], 'NODE_ENV must be development, test or production')
    .default('production')
    .meta({
      description: 'The runtime environment.',
      shown: '`production` (`npm run dev`: `development`; tests: `test`)',
    }),
  HOST: yup.string().optional().meta({
    description: 'API bind address.',
    shown: '`127.0.0.1` in development and test, `0.0.0.0` in production',
  }),
  PORT: yup
    .number()
    .typeError('PORT must be a number')
    .integer('PORT must be an integer')
    .min(0, 'PORT must be between 0 and 65535')
    .max(65535, 'PORT must be between 0 and 65535')
    .default(3000)
    .meta({ description: 'API port.' }),
  METRICS_PORT: intSetting('METRICS_PORT', 0, 65535, undefined).meta({
    description:
      'Where the API serves Prometheus metrics (`/metrics`, on `HOST`), apart from the API (docs/observability.md).',
    shown: '`9464` (tests: `0`, a free port)',
  }),
  WORKER_METRICS_PORT: intSetting('WORKER_METRICS_PORT', 0, 65535, undefined).meta({
    description: "Where the worker serves its metrics and the Temporal SDK's (docs/observability.md).",
    shown: '`9465` (tests: `0`, a free port)',
  }),
  DATABASE_URL: yup
    .string()
    .required('DATABASE_URL is required (postgres://user:password@host:port/database)')
    .matches(/^postgres(ql)?:\/\//, 'DATABASE_URL must start with postgres:// or postgresql://')
    .meta({
      description: '`postgres://user:pass@host:port/db`.',
      shown: 'required (`npm run dev`: embedded PostgreSQL)',
    }),
  TEMPORAL_ADDRESS: yup
    .string()
    .required('TEMPORAL_ADDRESS is required (host:port of the Temporal frontend)')
    .matches(/^[^\s:/]+:\d+$/, 'TEMPORAL_ADDRESS must be host:port')
    .meta({
      description: '`host:port` of the Temporal frontend.',
      shown: 'required (`npm run dev`: the dev server)',
    }),
  TEMPORAL_NAMESPACE: yup
    .string()
    .default('default')
    .meta({ description: 'The Temporal namespace workflows run in.' }),
  TEMPORAL_TASK_QUEUE: yup
    .string()
    .default('lead-service')
    .meta({ description: 'The task queue the worker polls; the maintenance schedules are named after it.' }),
  SECRETS_KEY: yup.string().optional().meta({
    description:
      "32 bytes, base64 (`openssl rand -base64 32`); encrypts webhook signing secrets (and CalDAV passwords) at rest and keys unsubscribe links' HMAC.",
    shown: 'required in production; a fixed dev key in development and test',
  }),
  TRUST_PROXY: booleanString('TRUST_PROXY').meta({
    description: 'Trust `X-Forwarded-For` for the client address (IP allowlists, audit).',
  }),
  TRUST_PROXY_HOPS: yup
    .number()
    .typeError('TRUST_PROXY_HOPS must be a number')
    .integer('TRUST_PROXY_HOPS must be an integer')
    .min(1, 'TRUST_PROXY_HOPS must be between 1 and 10')
    .max(10, 'TRUST_PROXY_HOPS must be between 1 and 10')
    .optional()
    .meta({
      description:
        'How many proxies in front append to `X-Forwarded-For`; the client address is the entry the outermost one appended. Setting it implies `TRUST_PROXY`.',
      shown: '`1` when `TRUST_PROXY=true`',
    }),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: booleanString('WEBHOOK_ALLOW_PRIVATE_TARGETS').meta({
    description: 'Allow `http://` and private/loopback webhook (and CalDAV) targets.',
    shown: '`false` (`npm run dev`: `true`)',
  }),
  WEBHOOK_ALLOW_PRIVATE_TARGETS_IN_PRODUCTION: booleanString(
    'WEBHOOK_ALLOW_PRIVATE_TARGETS_IN_PRODUCTION',
  ).meta({
    description:
      'Required as well for `WEBHOOK_ALLOW_PRIVATE_TARGETS=true` in production (refused otherwise; logged loudly when forced).',
  }),
  DB_POOL_SIZE: yup
    .number()
    .typeError('DB_POOL_SIZE must be a number')
    .integer('DB_POOL_SIZE must be an integer')
    .min(1, 'DB_POOL_SIZE must be between 1 and 200')
    .max(200, 'DB_POOL_SIZE must be between 1 and 200')
    .default(20)
    .meta({ description: 'PostgreSQL connections per process.' }),
  RATE_LIMIT_PER_MINUTE: yup
    .number()
    .typeError('RATE_LIMIT_PER_MINUTE must be a number')
    .integer('RATE_LIMIT_PER_MINUTE must be an integer')
    .min(1, 'RATE_LIMIT_PER_MINUTE must be at least 1')
    .default(300)
    .meta({ description: 'Requests a minute per key.' }),
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
    )
    .meta({
      description:
        'Comma-separated browser origins (besides loopback) the assistant endpoint accepts; others get 403.',
      shown: 'empty',
    }),
  WEBHOOK_ENDPOINT_CONCURRENCY: intSetting('WEBHOOK_ENDPOINT_CONCURRENCY', 1, 100, 10).meta({
    description:
      'Attempts one worker makes to one endpoint at once; more wait in their workflow (1 s doubling to 1 min).',
  }),
  WORKER_ATTEMPT_SLOTS: intSetting('WORKER_ATTEMPT_SLOTS', 1, WORKFLOW_TASK_SLOTS, 50).meta({
    description: 'Attempts one worker runs at once (at most its workflow task slots).',
  }),
  WEBHOOK_SEARCH_ATTRIBUTES: yup
    .string()
    .default(DELIVERY_ATTRIBUTE_NAMES.join(','))
    .test('attributes', (v, ctx) => {
      const names = deliveryAttributeNames(v);
      const unknown = names.filter((n) => !DELIVERY_ATTRIBUTE_NAMES.includes(n));
      if (unknown.length === 0 && (names.length > 0 || v.trim().toLowerCase() === 'none')) return true;
      return ctx.createError({
        message:
          `WEBHOOK_SEARCH_ATTRIBUTES must be none or a comma-separated list of ${DELIVERY_ATTRIBUTE_NAMES.join(', ')}` +
          (unknown.length > 0 ? ` (not one of them: ${unknown.join(', ')})` : ''),
      });
    })
    .meta({
      description:
        "Search attributes each webhook delivery workflow carries, to filter in Temporal's Web UI: comma-separated `WebhookEventType`, `WebhookEndpointId`, `WorkspaceId`, or `none`. Each is written on every visibility write; no code queries them (docs/temporal.md).",
    }),
  WORKER_DEPLOYMENT_NAME: yup
    .string()
    .optional()
    .matches(/^[^.:]+$/, 'WORKER_DEPLOYMENT_NAME must not contain "." or ":"')
    .meta({
      description:
        'The worker\'s Temporal Worker Deployment: each build of the worker is one of its versions (docs/temporal.md, "Deploys").',
      shown: '`TEMPORAL_TASK_QUEUE` (`lead-service`)',
    }),
  WORKER_BUILD_ID: yup.string().optional().max(255, 'WORKER_BUILD_ID must be at most 255 characters').meta({
    description:
      "This worker's version in its deployment, set by the release (the image's build argument); two builds of different workflow code must never share one.",
    shown: "`<package.json version>+<12 hex digits of the workflow bundle's SHA-256>`",
  }),
  WORKER_SET_CURRENT: yup
    .string()
    .oneOf(['on-start', 'by-rollout'], 'WORKER_SET_CURRENT must be on-start or by-rollout')
    .default('on-start')
    .meta({
      description:
        '`on-start`: a starting worker makes its version current (one worker replaced in place: compose, `npm run dev`); `by-rollout`: the rollout does, once the new workers poll (docs/temporal.md, "Deploys").',
    }),
  REQUEST_TIMEOUT_MS: intSetting('REQUEST_TIMEOUT_MS', 1_000, 120_000, 10_000).meta({
    description:
      'A request not answered by then gets `503 unavailable` with its `request_id` (the work may still finish).',
  }),
  DB_CONNECT_TIMEOUT_MS: intSetting('DB_CONNECT_TIMEOUT_MS', 100, 60_000, 5_000).meta({
    description: 'Connecting to PostgreSQL, and waiting for a pooled connection.',
  }),
  DB_STATEMENT_TIMEOUT_MS: intSetting('DB_STATEMENT_TIMEOUT_MS', 100, 600_000, 8_000).meta({
    description: 'PostgreSQL `statement_timeout` (the client gives up one second later).',
  }),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: intSetting(
    'DB_IDLE_IN_TRANSACTION_TIMEOUT_MS',
    100,
    600_000,
    10_000,
  ).meta({ description: 'PostgreSQL `idle_in_transaction_session_timeout`.' }),
  AUDIT_QUEUE_LIMIT: intSetting('AUDIT_QUEUE_LIMIT', 10, 1_000_000, 5_000).meta({
    description: 'Audit rows waiting to be written; while it is full new requests get `503 unavailable`.',
  }),
  REFUSED_PER_MINUTE: intSetting('REFUSED_PER_MINUTE', 1, 1_000_000, 60).meta({
    description:
      'Refused requests (bad, unknown, revoked key; address outside the allowlist) per client address (IPv6: per /64) a minute, per API process; then `429` before any key lookup.',
  }),
  QUOTE_PAGE_PER_MINUTE: intSetting('QUOTE_PAGE_PER_MINUTE', 1, 1_000_000, 30).meta({
    description:
      'Requests a minute per client address (IPv6: per /64) on the public quote pages, shared by every API process (counted in PostgreSQL); then a `429` page.',
  }),
  UNSUBSCRIBE_PER_MINUTE: intSetting('UNSUBSCRIBE_PER_MINUTE', 1, 1_000_000, 30).meta({
    description: 'The same for unsubscribe links (`/u/...`).',
  }),
  HOOKS_PER_MINUTE: intSetting('HOOKS_PER_MINUTE', 1, 1_000_000, 1_200).meta({
    description:
      'Provider webhooks (SMS, inbound email) per workspace a minute, counted once their signature or secret holds; then `429` with `Retry-After` (providers retry). Failed proofs count per client address against `REFUSED_PER_MINUTE`.',
  }),
  IDEMPOTENCY_RETENTION_HOURS: intSetting('IDEMPOTENCY_RETENTION_HOURS', 24, 24 * 365, 48).meta({
    description: 'Idempotency records kept (at least 24, the replay window).',
  }),
  AUDIT_RETENTION_DAYS: intSetting('AUDIT_RETENTION_DAYS', 1, 3_650, 365).meta({
    description: 'Audit rows kept, and the mail reports (bounces, complaints, proven or not) beside them.',
  }),
  EVENT_RETENTION_DAYS: intSetting('EVENT_RETENTION_DAYS', 2, 3_650, 30).meta({
    description: 'Events (with their deliveries and attempts) kept; never one still being delivered.',
  }),
  CONSOLE_SESSION_IDLE_MINUTES: intSetting('CONSOLE_SESSION_IDLE_MINUTES', 1, 1_440, 30).meta({
    description:
      "Minutes a member's console session may go unused before it ends (they sign in again with their passkey).",
  }),
  CONSOLE_SESSION_MAX_HOURS: intSetting('CONSOLE_SESSION_MAX_HOURS', 1, 720, 12).meta({
    description:
      "Hours a member's console session lasts at most, however active; lowering it ends older sessions at their next request.",
  }),
  MAINTENANCE_SCHEDULES: booleanString('MAINTENANCE_SCHEDULES').default('true').meta({
    description:
      'The worker creates the reconcile and retention schedules (off in tests that run many workers).',
  }),
  LOG_LEVEL: yup
    .string()
    .oneOf(['debug', 'info', 'warn', 'error'], 'LOG_LEVEL must be debug, info, warn or error')
    .default('info')
    .meta({
      description: 'The lowest level written; `debug` adds a line per API request (docs/observability.md).',
    }),
  WORKFLOW_BUNDLE: yup.string().optional().meta({
    description:
      'A workflow bundle built ahead (`node dist/worker/bundle-workflows.js <file>`); the image builds one, so its worker starts without webpack; `npm test` builds one per run.',
    shown: 'unset (bundled at start)',
  }),
  PUBLIC_URL: yup
    .string()
    .matches(/^https?:\/\/[^\s]+$/, 'PUBLIC_URL must be an http(s) URL')
    .optional()
    .meta({
      description:
        'Where people and providers reach the API: unsubscribe and quote links are built on it, and Twilio signs the webhook URL it calls.',
      shown: '`http://localhost:<PORT>`',
    }),
  APPROVALS_OPERATOR_DECIDE: booleanString('APPROVALS_OPERATOR_DECIDE').meta({
    description:
      'Lets an operator decide approval requests in production (`approval approve|reject --as`, a break-glass recorded as operator-asserted with the OS user and host); read by the worker and the admin CLI. Always allowed outside production.',
    shown: '`false` (`npm run dev`: `true`)',
  }),
  SMTP_URL: yup
    .string()
    .matches(/^smtps?:\/\/[^\s]+$/, 'SMTP_URL must start with smtp:// or smtps://')
    .optional()
    .meta({
      description:
        'Outbound email: `smtp://user:pass@host:587` or `smtps://...:465`; unset, email messages fail visibly ("no SMTP server is configured").',
      shown: 'unset (`npm run dev`: MailDev)',
    }),
  MAIL_FROM: yup
    .string()
    .matches(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'MAIL_FROM must be an email address')
    .optional()
    .meta({
      description:
        "The sender address; the display name is the workspace's; its domain ends every Message-ID.",
      shown: '`no-reply@localhost.localdomain` (`npm run dev`: `hello@leads.localhost`)',
    }),
  DKIM_SELECTOR: yup
    .string()
    .matches(DNS_LABEL, 'DKIM_SELECTOR must be a DNS label: letters, digits and inner hyphens, at most 63')
    .optional()
    .meta({
      description:
        "The DKIM key's selector, a DNS label; with `DKIM_PRIVATE_KEY_FILE` every email is signed (docs/email-sending.md).",
      shown: 'unset (`npm run dev`: `dev`)',
    }),
  DKIM_PRIVATE_KEY_FILE: yup.string().optional().meta({
    description: 'PEM RSA private key, 2048 bits recommended (1024 at least); read and checked at start.',
    shown: 'unset (`npm run dev`: `.data/dkim/dev.pem`, made once)',
  }),
  DKIM_DOMAIN: yup
    .string()
    .lowercase()
    .matches(DOMAIN_NAME, 'DKIM_DOMAIN must be a domain name such as example.com')
    .optional()
    .meta({
      description:
        "The signing domain `d=`: `MAIL_FROM`'s domain or a parent of it (DMARC relaxed alignment).",
      shown: "`MAIL_FROM`'s domain",
    }),
  MAIL_RETURN_PATH_DOMAIN: yup
    .string()
    .lowercase()
    .matches(DOMAIN_NAME, 'MAIL_RETURN_PATH_DOMAIN must be a domain name such as bounces.example.com')
    .optional()
    .meta({
      description:
        "The envelope sender's domain: each email's return path is `bounces+<id>.<mac>@` it, so a bounce proves which email it is about. It needs an MX to the inbound forwarder and SPF (`mail dns`), and must share `MAIL_FROM`'s organisational domain (DMARC alignment).",
      shown: "`MAIL_FROM`'s domain",
    }),
  MAIL_FEEDBACK_DOMAINS: yup
    .string()
    .lowercase()
    .default('')
    .test(
      'domains',
      'MAIL_FEEDBACK_DOMAINS must be comma-separated domain names such as fbl.example.net',
      (v) => feedbackDomainList(v).every((d) => DOMAIN_NAME.test(d)),
    )
    .meta({
      description:
        'Comma-separated feedback-loop domains of mailbox providers: a complaint From one of them (or a subdomain) and DKIM-signed by it suppresses without a return path of ours; any other complaint must reach one (docs/email-sending.md).',
      shown: 'empty',
    }),
  SMS_API_URL: yup
    .string()
    .matches(/^https?:\/\/[^\s]+$/, 'SMS_API_URL must be an http(s) URL')
    .optional()
    .meta({
      description: "The SMS provider (Twilio's Messages API, or one shaped like it).",
      shown: '`https://api.twilio.com`',
    }),
  SMS_ACCOUNT_SID: yup.string().optional().meta({
    description: 'The provider account; `SMS_ACCOUNT_SID`, `SMS_AUTH_TOKEN` and `SMS_FROM` together or none.',
    shown: 'unset (`npm run dev`: a local provider)',
  }),
  SMS_AUTH_TOKEN: yup.string().optional().meta({
    description: "The provider account's token; it also verifies inbound webhooks (`X-Twilio-Signature`).",
    shown: 'unset (`npm run dev`: a local provider)',
  }),
  SMS_FROM: yup
    .string()
    .matches(/^\+[1-9][0-9]{6,14}$/, 'SMS_FROM must be a number in E.164 form (+15551234567)')
    .optional()
    .meta({
      description: 'The sending number, E.164 (`+15551234567`); WhatsApp sends from `whatsapp:<SMS_FROM>`.',
    }),
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl('OTEL_EXPORTER_OTLP_ENDPOINT').meta({
    description:
      'An OpenTelemetry collector (`http://collector:4318`; gRPC: `:4317`): traces go to it (`/v1/traces` appended over HTTP). Unset, no span is made (docs/observability.md).',
    shown: 'unset (tracing off)',
  }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT').meta({
    description: 'The full traces URL, used as it is; it wins over `OTEL_EXPORTER_OTLP_ENDPOINT`.',
    shown: 'unset',
  }),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol('OTEL_EXPORTER_OTLP_PROTOCOL').meta({
    description:
      "`http/protobuf`, `http/json` or `grpc`. The exporter also reads `OTEL_EXPORTER_OTLP_HEADERS` (a collector's key), `_TIMEOUT` and `_COMPRESSION`.",
  }),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: yup
    .string()
    .oneOf([...OTLP_PROTOCOLS], `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be ${OTLP_PROTOCOLS.join(', ')}`)
    .optional()
    .meta({ description: 'The same for traces only; it wins.', shown: 'unset' }),
  OTEL_TRACES_EXPORTER: yup
    .string()
    .oneOf(['otlp', 'none'], 'OTEL_TRACES_EXPORTER must be otlp or none')
    .default('otlp')
    .meta({ description: '`none` turns tracing off with the endpoint set.' }),
  OTEL_SDK_DISABLED: booleanString('OTEL_SDK_DISABLED').meta({
    description: '`true` turns tracing off with the endpoint set.',
  }),
  OTEL_SERVICE_NAME: yup.string().optional().meta({
    description: "The traces' `service.name`.",
    shown: '`lead-service-api`, `lead-service-worker` (`npm run dev`: `lead-service-dev`)',
  }),
  OTEL_RESOURCE_ATTRIBUTES: yup
    .string()
    .matches(
      /^([^=,\s]+=[^,]*)(,[^=,\s]+=[^,]*)*$/,
      'OTEL_RESOURCE_ATTRIBUTES must be key=value pairs separated by commas',
    )
    .optional()
    .meta({
      description:
        'More resource attributes on every span: `deployment.environment=prod,service.version=1.2`.',
      shown: 'unset',
    }),
  OTEL_TRACES_SAMPLER: yup.string().optional().meta({
    description:
      "The SDK's sampler (`parentbased_traceidratio` with `OTEL_TRACES_SAMPLER_ARG=0.1` keeps one trace in ten); read by the SDK.",
    shown: '`parentbased_always_on`',
  }),
});

/** A collector's URL; the message names the variable. */
function otlpUrl(name: string) {
  return yup
    .string()
    .matches(/^https?:\/\/[^\s]+$/, `${name} must be an http(s) URL such as http://collector:4318`)
    .optional();
}

function otlpProtocol(name: string) {
  return yup
    .string()
    .oneOf([...OTLP_PROTOCOLS], `${name} must be ${OTLP_PROTOCOLS.join(', ')}`)
    .default('http/protobuf');
}

/**
 * Where traces go, from the standard OpenTelemetry variables: the signal's own endpoint as it is, or
 * the general one with `/v1/traces` (over HTTP; gRPC takes the endpoint itself).
 */
function tracingSettings(parsed: yup.InferType<typeof configSchema>): Config['tracing'] {
  if (parsed.OTEL_SDK_DISABLED === 'true' || parsed.OTEL_TRACES_EXPORTER === 'none') return undefined;
  const protocol = parsed.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? parsed.OTEL_EXPORTER_OTLP_PROTOCOL;
  const base = parsed.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url =
    parsed.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (base && (protocol === 'grpc' ? base : `${base.replace(/\/$/, '')}/v1/traces`));
  if (!url) return undefined;
  const resourceAttributes = Object.fromEntries(
    (parsed.OTEL_RESOURCE_ATTRIBUTES ?? '')
      .split(',')
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=');
        const value = pair.slice(at + 1).trim();
        // Values are percent-encoded (the variable's specification); one that is not is kept as written.
        let decoded = value;
        try {
          decoded = decodeURIComponent(value);
        } catch {
          // kept as written
        }
        return [pair.slice(0, at).trim(), decoded];
      }),
  );
  return {
    url,
    protocol,
    ...(parsed.OTEL_SERVICE_NAME && { serviceName: parsed.OTEL_SERVICE_NAME }),
    resourceAttributes,
  };
}

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

/**
 * The return path's domain: SPF is checked for it, and DMARC counts that pass only when it shares
 * MAIL_FROM's organisational domain, so one that does not is refused rather than left to fail quietly.
 */
function readReturnPathDomain(named: string | undefined, from: string, problems: string[]): string {
  const fromDomain = from.split('@')[1]!.toLowerCase();
  if (!named) return fromDomain;
  const org = (d: string) => getDomain(d, { allowIcannDomains: true, allowPrivateDomains: true }) ?? d;
  if (org(named) !== org(fromDomain))
    problems.push(
      `MAIL_RETURN_PATH_DOMAIN (${named}) must share MAIL_FROM's organisational domain (${org(fromDomain)}), or receivers' DMARC checks will not count its SPF`,
    );
  return named;
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
/**
 * The environment a tool run beside `npm run dev` configures itself from (the admin CLI): the process's
 * variables, with the stack file filling in what they leave out (infra/stack-file.ts).
 */
export const besideDevStack = (): NodeJS.ProcessEnv => envWithDevStack(process.env);

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const input = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  let parsed: yup.InferType<typeof configSchema>;
  try {
    parsed = configSchema.validateSync(input, { abortEarly: false, stripUnknown: true });
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
  const returnPathDomain = readReturnPathDomain(parsed.MAIL_RETURN_PATH_DOMAIN, mailFrom, problems);
  // Temporal refuses a deployment name with either: say so at start, not at the first poll.
  const deploymentName = parsed.WORKER_DEPLOYMENT_NAME ?? parsed.TEMPORAL_TASK_QUEUE;
  if (/[.:]/.test(deploymentName))
    problems.push(
      `The task queue (${deploymentName}) names the Worker Deployment, which may not contain "." or ":": set WORKER_DEPLOYMENT_NAME`,
    );
  if (parsed.WORKFLOW_BUNDLE && !existsSync(parsed.WORKFLOW_BUNDLE))
    problems.push(`WORKFLOW_BUNDLE names no file (${parsed.WORKFLOW_BUNDLE}); unset it to bundle at start`);
  const tracing = tracingSettings(parsed);
  if (parsed.CONSOLE_SESSION_IDLE_MINUTES > parsed.CONSOLE_SESSION_MAX_HOURS * 60)
    problems.push('CONSOLE_SESSION_IDLE_MINUTES must not be longer than CONSOLE_SESSION_MAX_HOURS');
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
    // In their declared order, each once, however the variable lists them.
    webhookSearchAttributes: DELIVERY_SEARCH_ATTRIBUTES.filter((k) =>
      deliveryAttributeNames(parsed.WEBHOOK_SEARCH_ATTRIBUTES).includes(k.name),
    ),
    workflowBundle: parsed.WORKFLOW_BUNDLE,
    workerDeployment: {
      deploymentName,
      buildId: parsed.WORKER_BUILD_ID,
      setCurrent: parsed.WORKER_SET_CURRENT,
    },
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
    consoleSessions: {
      idleMinutes: parsed.CONSOLE_SESSION_IDLE_MINUTES,
      maxHours: parsed.CONSOLE_SESSION_MAX_HOURS,
    },
    approvalsOperatorDecide: parsed.APPROVALS_OPERATOR_DECIDE === 'true',
    ...(parsed.SMTP_URL && {
      smtp: { url: parsed.SMTP_URL, from: mailFrom, returnPathDomain, ...(dkim && { dkim }) },
    }),
    mailFeedbackDomains: feedbackDomainList(parsed.MAIL_FEEDBACK_DOMAINS),
    ...(tracing && { tracing }),
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
  // Said, not refused: the API and every other page work on an address; only passkeys do not.
  if (isIP(new URL(config.publicUrl).hostname.replace(/^\[|\]$/g, '')))
    log.error(
      `PUBLIC_URL (${config.publicUrl}) names an IP address: the console's passkeys need a host name (WebAuthn refuses an IP address as relying party), e.g. http://localhost:${config.port}`,
    );
}
