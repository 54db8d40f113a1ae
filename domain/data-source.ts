import pg from 'pg';
import { DataSource } from 'typeorm';
import { Identity1763800000000 } from './migrations/1763800000000-identity';
import { Leads1763800100000 } from './migrations/1763800100000-leads';
import { Webhooks1763800200000 } from './migrations/1763800200000-webhooks';
import { SearchIndex1763800300000 } from './migrations/1763800300000-search-index';
import { Assistant1763800400000 } from './migrations/1763800400000-assistant';
import { Hardening1763800500000 } from './migrations/1763800500000-hardening';
import { ApprovalTasks1763800600000 } from './migrations/1763800600000-approval-tasks';
import { Entities1763800700000 } from './migrations/1763800700000-entities';
import { Channels1763800800000 } from './migrations/1763800800000-channels';
import { Appointments1763800900000 } from './migrations/1763800900000-appointments';
import { Campaigns1763801000000 } from './migrations/1763801000000-campaigns';
import { Agents1763801200000 } from './migrations/1763801200000-agents';
import { Prospects1763801300000 } from './migrations/1763801300000-prospects';
import { Analytics1763801400000 } from './migrations/1763801400000-analytics';
import { Sales1763801500000 } from './migrations/1763801500000-sales';
import { SearchJoined1763801600000 } from './migrations/1763801600000-search-joined';
import { FreshVisibility1763801700000 } from './migrations/1763801700000-fresh-visibility';
import { ApprovalSnapshots1763801900000 } from './migrations/1763801900000-approval-snapshots';
import { MailAuthentication1763802000000 } from './migrations/1763802000000-mail-authentication';
import { PublicSurfaces1763802100000 } from './migrations/1763802100000-public-surfaces';
import { FirstResponseIndex1763801800000 } from './migrations/1763801800000-first-response-index';
import { SellerProfile1763802200000 } from './migrations/1763802200000-seller-profile';
import { WebhookSigning1763802300000 } from './migrations/1763802300000-webhook-signing';
import { FairRelay1763802400000 } from './migrations/1763802400000-fair-relay';
import { TraceContext1763802500000 } from './migrations/1763802500000-trace-context';
import { BearerLinks1763802600000 } from './migrations/1763802600000-bearer-links';
import { ApprovalPolicy1763802700000 } from './migrations/1763802700000-approval-policy';
import { MailReports1763802800000 } from './migrations/1763802800000-mail-reports';
import { ConsoleSignIn1763802900000 } from './migrations/1763802900000-console-sign-in';
import { ConsoleDoor1763802950000 } from './migrations/1763802950000-console-door';
import { ApprovalDecisionEvidence1763803000000 } from './migrations/1763803000000-approval-decision-evidence';
import { AssistantOauth1763803100000 } from './migrations/1763803100000-assistant-oauth';
import { AttemptSending1763803200000 } from './migrations/1763803200000-attempt-sending';
import { ENTITIES } from './entities';

// A calendar date (quotes' valid-until, invoices' due date) stays the text PostgreSQL gave: a JS Date
// would put it at a midnight in some time zone, and one day could read as another.
pg.types.setTypeParser(pg.types.builtins.DATE, (v: string) => v);

const migrations = [
  Identity1763800000000,
  Leads1763800100000,
  Webhooks1763800200000,
  SearchIndex1763800300000,
  Assistant1763800400000,
  Hardening1763800500000,
  ApprovalTasks1763800600000,
  Entities1763800700000,
  Channels1763800800000,
  Appointments1763800900000,
  Campaigns1763801000000,
  Agents1763801200000,
  Prospects1763801300000,
  Analytics1763801400000,
  Sales1763801500000,
  SearchJoined1763801600000,
  FreshVisibility1763801700000,
  FirstResponseIndex1763801800000,
  ApprovalSnapshots1763801900000,
  MailAuthentication1763802000000,
  PublicSurfaces1763802100000,
  SellerProfile1763802200000,
  WebhookSigning1763802300000,
  FairRelay1763802400000,
  TraceContext1763802500000,
  BearerLinks1763802600000,
  ApprovalPolicy1763802700000,
  MailReports1763802800000,
  ConsoleSignIn1763802900000,
  ConsoleDoor1763802950000,
  ApprovalDecisionEvidence1763803000000,
  AssistantOauth1763803100000,
  AttemptSending1763803200000,
];

/**
 * TypeORM gives the service its pool, transactions, migrations and the entities each area's
 * repository reads and writes through (docs/decisions.md). Schema changes only ever come from
 * migrations; `synchronize` stays off, and a test keeps the entities equal to what they create.
 */
export type DatabaseTimeouts = {
  /** Connecting, and waiting for a free connection in the pool. */
  connectTimeoutMs: number;
  /** One statement, ended by PostgreSQL; the client gives up a second later if the server is hung. */
  statementTimeoutMs: number;
  /** A transaction left open without a statement (a stuck process) is ended and its locks freed. */
  idleInTransactionTimeoutMs: number;
};

function createDataSource(url: string, poolSize = 10, timeouts?: DatabaseTimeouts): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: ENTITIES,
    // gen_random_uuid(), as the migrations write it.
    uuidExtension: 'pgcrypto',
    migrations,
    synchronize: false,
    migrationsRun: false,
    // A condition whose value is missing would otherwise be dropped, and match every row.
    invalidWhereValuesBehavior: { null: 'throw', undefined: 'throw' },
    logging: false,
    extra: {
      max: poolSize,
      keepAlive: true,
      // Named statements (Data.prepared: lookups by key or id) keep one plan; left to choose, PostgreSQL
      // re-planned the key lookup for every lone request. TypeORM's statements are unnamed: unaffected.
      options: '-c plan_cache_mode=force_generic_plan',
      ...(timeouts && {
        connectionTimeoutMillis: timeouts.connectTimeoutMs,
        statement_timeout: timeouts.statementTimeoutMs,
        query_timeout: timeouts.statementTimeoutMs + 1_000,
        idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs,
      }),
    },
  });
}

/** The services' pool; `timeouts` bound every wait on PostgreSQL (migrations run without them). */
export async function openDatabase(
  url: string,
  opts: { migrate?: boolean; poolSize?: number; timeouts?: DatabaseTimeouts } = {},
) {
  // Migrating holds one connection for the lock while the migrations run on another: a pool of one
  // would wait for itself forever (compose's one-shot `migrate` asked for one).
  const poolSize = opts.migrate && opts.poolSize !== undefined ? Math.max(2, opts.poolSize) : opts.poolSize;
  const db = createDataSource(url, poolSize, opts.timeouts);
  await db.initialize();
  if (opts.migrate) await migrate(db);
  return db;
}

// Any number of processes may start at once (tests, api + worker); one migrates, the rest wait.
const MIGRATION_LOCK = 7_331_001;

async function migrate(db: DataSource): Promise<void> {
  const runner = db.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await db.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
}
