import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import { createApprovalActivities } from '../../activities/approval';
import { approvalGate } from '../../infra/temporal/approvals';
import type { Services } from '../../domain/kernel/operation';
import { APPROVAL_OPERATION, APPROVAL_STATUS, WORKSPACE_ID } from '../../domain/kernel/search-attributes';
import { freshDatabase } from './db';
import { timeSkippingEnvironment } from './time-skipping';
import { workflowCode } from './workflow-code';
import { SERVICE_DEFAULTS, testServices } from '../../tooling/services';

const { IndexedValueType } = temporal.api.enums.v1;

/**
 * The approval gate on Temporal's time-skipping server (a week's wait takes a moment): a fresh
 * database, the services with the gate, and a worker running the approval workflow and activities
 * with the services `workerServices` builds (the tests' own unless a test configures the worker as a
 * deployment would).
 */
export async function approvalEnvironment(
  name: string,
  workerServices: (db: DataSource) => Services = (db) => testServices(db),
) {
  const env = await timeSkippingEnvironment();
  // The approval workflow carries the search attributes operators filter on; this server must know them.
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(
      [WORKSPACE_ID, APPROVAL_OPERATION, APPROVAL_STATUS].map((k) => [
        k.name,
        IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
      ]),
    ),
  });
  const t = await freshDatabase();
  const taskQueue = `${name}-${process.pid}`;
  const services: Services = testServices(t.db, {
    approvals: approvalGate(t.db, () => Promise.resolve(env.client), taskQueue, SERVICE_DEFAULTS),
  });
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    ...workflowCode(),
    activities: createApprovalActivities(workerServices(t.db)),
  });
  const running = worker.run();
  return {
    env,
    t,
    services,
    stop: async () => {
      worker.shutdown();
      await running.catch(() => undefined);
      await env.teardown();
      await t.drop();
    },
  };
}
