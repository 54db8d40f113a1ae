import type { AppDeps } from '../../api/server';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type * as yup from 'yup';
import type { Operation, Services } from '../../domain/kernel/operation';
import type { RunOptions } from '../../domain/kernel/runner';
import { createEndpoint } from '../../domain/webhooks/operations/endpoint-create';
import { loadConfig, type Config } from '../../infra/config';
import { createLogger, type Logger } from '../../infra/logger';
import { waitFor } from '../../tooling/processes';
import { approvalGate } from '../../infra/temporal/approvals';
import { deliveryCanceller } from '../../infra/temporal/webhooks';
import { runWorker, type RunningWorker } from '../../worker/run';
import { testApp } from './api';
import { freshDatabase, type TestDatabase } from './db';
import { asOperator, workspaceWithKey } from './fixtures';
import type { Receiver } from './receiver';
import { testServices } from '../../tooling/services';

export const temporalAddress = () => {
  const a = process.env.TEST_TEMPORAL_ADDRESS;
  if (!a) throw new Error('TEST_TEMPORAL_ADDRESS is not set: run the tests with `npm test`');
  return a;
};

export type DeliveryRow = {
  id: string;
  status: string;
  attempts: number;
  response_status: number | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  event_type: string;
  event_id: string;
  generation: number;
};

/** PostgreSQL, the real Temporal dev server, the worker with its relay, and the API, on a task queue of its own. */
export async function startWebhookStack(
  opts: {
    inProcessWorker?: boolean;
    env?: NodeJS.ProcessEnv;
    log?: Logger;
    /** DNS for inbound mail's authentication (test/helpers/mail-dns.ts). */
    mailResolver?: AppDeps['mailResolver'];
  } = {},
) {
  const t: TestDatabase = await freshDatabase();
  const config: Config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: t.url,
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_TASK_QUEUE: `webhooks-${randomUUID().slice(0, 8)}`,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // Many stacks share one Temporal server; the maintenance tests start their schedules themselves.
    MAINTENANCE_SCHEDULES: 'false',
    // The run's prebuilt workflow bundle (npm test), if any.
    WORKFLOW_BUNDLE: process.env.WORKFLOW_BUNDLE,
    ...opts.env,
  });
  const log = opts.log ?? createLogger('test-worker', 'error');
  const worker: RunningWorker | undefined =
    opts.inProcessWorker === false ? undefined : await runWorker(config, t.db, log);
  const connection = await Connection.connect({ address: config.temporalAddress });
  const client = new Client({ connection, namespace: config.temporalNamespace });
  const w = await workspaceWithKey(t.db, {
    role: 'admin',
    scopes: ['leads:read', 'leads:write', 'business:read'],
  });
  const endpointDeps = {
    secretsKey: config.secretsKey,
    allowPrivateTargets: true,
    cancelWorkflows: deliveryCanceller(() => Promise.resolve(client)),
  };
  const services: Services = testServices(t.db, {
    webhooks: endpointDeps,
    approvals: approvalGate(t.db, () => Promise.resolve(client), config.temporalTaskQueue, config),
  });
  /** Runs a registered operation as the operator, with the services the admin CLI gives it. */
  const run = <S extends yup.AnyObjectSchema, O>(
    op: Operation<S, O>,
    input: Record<string, unknown>,
    opts: RunOptions = {},
  ) => asOperator(services, op, input, opts);
  return {
    t,
    db: t.db,
    config,
    client,
    /** The in-process worker (its metrics page, for one), unless `inProcessWorker: false`. */
    worker,
    app: testApp(t.db, {
      config: { sms: config.sms, publicUrl: config.publicUrl },
      ports: { mailFeedbackDomains: config.mailFeedbackDomains },
      mailResolver: opts.mailResolver,
    }),
    workspace: w.workspace,
    key: w.key.key,
    endpointDeps,
    run,
    /** An endpoint pointing at the receiver, whose secret the receiver then verifies with. */
    endpoint: async (receiver: Receiver, events: string[], path = '') => {
      const e = await run(
        createEndpoint,
        { url: receiver.url + path, events },
        { workspaceId: w.workspace.id },
      );
      receiver.setSecret(e.secret);
      return e;
    },
    deliveries: (where = 'true', params: unknown[] = []) =>
      t.db.query<DeliveryRow[]>(
        `SELECT * FROM webhook_deliveries WHERE ${where} ORDER BY created_at`,
        params,
      ),
    waitForDelivery: async (
      where: string,
      params: unknown[],
      ok: (d: DeliveryRow) => boolean,
      timeoutMs = 20_000,
    ) =>
      waitFor(
        `a delivery matching ${where}`,
        async () => {
          const [d] = await t.db.query<DeliveryRow[]>(
            `SELECT * FROM webhook_deliveries WHERE ${where}`,
            params,
          );
          return d && ok(d) ? d : undefined;
        },
        timeoutMs,
        50,
      ),
    stop: async () => {
      await worker?.shutdown();
      await connection.close();
      await t.drop();
    },
  };
}
export type WebhookStack = Awaited<ReturnType<typeof startWebhookStack>>;
