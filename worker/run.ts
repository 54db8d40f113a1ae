import { rmSync } from 'node:fs';
import { Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import { createActivities } from '../activities';
import { httpPost } from '../activities/http-post';
import { smtpProvider } from '../activities/providers/email';
import { twilioShapedProvider } from '../activities/providers/sms';
import type { Config } from '../infra/config';
import type { Logger } from '../infra/logger';
import { bookingDesk } from '../infra/temporal/appointments';
import { approvalStarter } from '../infra/temporal/approvals';
import { workflowStatus } from '../infra/temporal-client';
import { checkTemporalEngine } from '../infra/temporal-engine';
import { workerSearchAttributes } from '../domain/kernel/search-attributes';
import { ensureSchedules } from '../infra/temporal/schedules';
import { deliveryStarter } from '../infra/temporal/webhooks';
import { outboxSources, startRelay } from './relay';
import { agentScheduler } from '../infra/temporal/agents';
import { bundleWorkflowsOutOfProcess, connectWorker, createWorker } from './worker';
import { buildIdOf, followVersionRouting, versionName } from './versioning';
import { metricsRegistry, serveMetrics } from '../infra/prometheus';
import { workerMetrics } from './worker-metrics';
import { sdkMetricsText } from './runtime';
import { flushTracing, startTracing, temporalTracing } from '../infra/tracing';
import { composeServices } from '../domain/registry';
import { productionPorts } from '../infra/services';

export type RunningWorker = {
  shutdown: () => Promise<void>;
  done: Promise<void>;
  /** Prometheus's page, on WORKER_METRICS_PORT: the worker's series and the Temporal SDK's. */
  metricsUrl: string;
  /** Its version of the Worker Deployment. */
  deploymentVersion: WorkerDeploymentVersion;
};

/**
 * Connects to Temporal and runs the worker and the outbox relay, with their metrics, until `shutdown`,
 * which stops the relay and drains in-flight tasks. The relay's client shares the worker's connection, so its
 * eager starts can run on this very worker.
 */
export async function runWorker(config: Config, db: DataSource, log: Logger): Promise<RunningWorker> {
  await startTracing(config.tracing, 'worker');
  const registry = metricsRegistry();
  const metrics = workerMetrics(registry, db);
  // First, so that a port already taken stops the start before anything else runs.
  const served = await serveMetrics(registry, {
    host: config.host,
    port: config.workerMetricsPort,
    log,
    more: sdkMetricsText,
  });
  const connection = await connectWorker(config.temporalAddress, log);
  await checkTemporalEngine(connection, {
    address: config.temporalAddress,
    namespace: config.temporalNamespace,
    who: 'worker',
    attributes: workerSearchAttributes(config.webhookSearchAttributes),
  }).catch(async (err: unknown) => {
    await Promise.all([connection.close(), served.close()]);
    throw err;
  });
  const workflowBundlePath = config.workflowBundle ?? (await bundleWorkflowsOutOfProcess());
  const deployment = config.workerDeployment;
  const deploymentVersion = {
    deploymentName: deployment.deploymentName,
    buildId: buildIdOf(workflowBundlePath, deployment.buildId),
  };
  // The relay's starts carry the trace of the change that wrote each row into the workflow's headers.
  const client = new Client({
    connection,
    namespace: config.temporalNamespace,
    plugins: [temporalTracing()],
  });
  // The relay asks for eager starts only on the current version (worker/versioning.ts), known below.
  let versionIsCurrent = () => false;
  // Paired before the worker runs: an outbox without its starter (or the reverse) stops the start.
  const sources = outboxSources(
    db,
    client,
    config.temporalTaskQueue,
    agentScheduler(() => Promise.resolve(client), config.temporalTaskQueue),
    { eager: () => versionIsCurrent(), searchAttributes: config.webhookSearchAttributes },
  );
  // One SMTP connection pool for messages to leads and mail to members, counted apart.
  const smtp = config.smtp && smtpProvider({ ...config.smtp, secretsKey: config.secretsKey });
  const worker = await createWorker({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.temporalTaskQueue,
    workflowBundlePath,
    attemptSlots: config.workerAttemptSlots,
    deploymentVersion,
    activities: createActivities({
      services: composeServices(productionPorts(db, config, () => Promise.resolve(client))),
      http: httpPost,
      clock: () => new Date(),
      endpointConcurrency: config.webhookEndpointConcurrency,
      metrics: metrics.activities,
      channels: {
        publicUrl: config.publicUrl,
        ...(smtp && { email: metrics.email(smtp), memberEmail: metrics.memberEmail(smtp) }),
        ...(config.sms && { sms: metrics.sms(twilioShapedProvider(config.sms)) }),
      },
      maintenance: {
        // The reconciler restarts deliveries, and a restart is never eager.
        startDelivery: deliveryStarter(client, config.temporalTaskQueue, {
          eager: () => false,
          searchAttributes: config.webhookSearchAttributes,
        }),
        startApproval: approvalStarter(client, config.temporalTaskQueue),
        startAppointment: bookingDesk(db, () => Promise.resolve(client), config.temporalTaskQueue).start,
        workflowStatus: workflowStatus(client),
        retention: config.retention,
      },
    }),
  });
  const done = worker.run().finally(() => connection.close());
  done.catch((err: unknown) => log.error('worker stopped with an error', { error: String(err) }));
  // A version can be made current only once its workers poll; the schedules and the relay start runs,
  // so they wait until it is settled which version those runs go to.
  const routing = await followVersionRouting({
    client,
    settings: deployment,
    buildId: deploymentVersion.buildId,
    taskQueue: config.temporalTaskQueue,
    log,
  }).catch(async (err: unknown) => {
    worker.shutdown();
    await Promise.all([done.catch(() => undefined), served.close()]);
    throw err;
  });
  versionIsCurrent = routing.isCurrent;
  if (config.maintenanceSchedules) await ensureSchedules(client, config.temporalTaskQueue, log);
  const relay = startRelay({
    databaseUrl: config.databaseUrl,
    log,
    onStart: metrics.relay.started,
    sources,
  });
  await relay.ready;
  metrics.relay.watch(relay.lag);
  const dkim = config.smtp?.dkim;
  log.info('worker running', {
    task_queue: config.temporalTaskQueue,
    namespace: config.temporalNamespace,
    metrics_url: served.url,
    worker_version: versionName(deploymentVersion),
    current: routing.isCurrent(),
    // Whose DNS receivers will ask for the key: `mail dns` prints the record to publish there.
    mail_signed_as: dkim ? `${dkim.selector}._domainkey.${dkim.domain}` : null,
  });
  let stopped: Promise<void> | undefined;
  return {
    done,
    metricsUrl: served.url,
    deploymentVersion,
    // Once, however often asked (a test stopping a worker its stack stops again).
    shutdown: () =>
      (stopped ??= (async () => {
        routing.stop();
        await served.close();
        await relay.stop();
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await done.catch(() => undefined);
        await flushTracing();
        if (!config.workflowBundle) rmSync(workflowBundlePath, { force: true });
      })()),
  };
}
