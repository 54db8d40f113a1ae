import type { Server } from 'node:http';
import type { DataSource } from 'typeorm';
import type { Config } from '../infra/config';
import type { Logger } from '../infra/logger';
import { buildApp } from './server';
import { loadSigningKeys } from '../domain/oauth';
import { composeServices } from '../domain/registry';
import { productionPorts } from '../infra/services';
import { connectClient } from '../infra/temporal-client';
import { closeServer, listening } from '../infra/listen';
import { metricsRegistry, serveMetrics } from '../infra/prometheus';
import { flushTracing, startTracing, temporalTracing } from '../infra/tracing';

export type RunningApi = {
  url: string;
  /** Prometheus's page, on METRICS_PORT. */
  metricsUrl: string;
  server: Server;
  close: () => Promise<void>;
};

/**
 * Serves the API, and its metrics on a port of their own; `close` stops accepting connections and
 * waits for in-flight requests.
 */
export async function listenApi(config: Config, db: DataSource, log: Logger): Promise<RunningApi> {
  // Temporal is dialled on the first parked approval request (or booking), so the API starts (and serves REST)
  // whether or not Temporal is up yet.
  await startTracing(config.tracing, 'api');
  let temporal: Promise<Awaited<ReturnType<typeof connectClient>>> | undefined;
  const client = async () => {
    temporal ??= connectClient(config.temporalAddress, config.temporalNamespace, [temporalTracing()]).catch(
      (err: unknown) => {
        temporal = undefined;
        throw err;
      },
    );
    return (await temporal).client;
  };
  const registry = metricsRegistry();
  // The authorization server's signing keys: made by the first API process that starts, sealed with SECRETS_KEY.
  const jwks = await loadSigningKeys(db, config.secretsKey);
  const app = buildApp({
    services: composeServices(productionPorts(db, config, client)),
    metrics: registry,
    config,
    log,
    oauth: { jwks, documents: { allowPrivate: config.webhookAllowPrivateTargets } },
  });
  // First, so that a port already taken stops the start before the API serves.
  const metrics = await serveMetrics(registry, { host: config.host, port: config.metricsPort, log });
  const server = app.listen(config.port, config.host);
  const url = await listening(server, config.host).catch(async (err: unknown) => {
    await metrics.close();
    throw err;
  });
  return {
    url,
    metricsUrl: metrics.url,
    server,
    close: () =>
      Promise.all([closeServer(server), metrics.close()]).then(async () => {
        if (temporal) await (await temporal.catch(() => undefined))?.close();
        await flushTracing();
      }),
  };
}
