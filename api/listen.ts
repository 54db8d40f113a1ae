import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import type { Config } from '../infra/config';
import type { Logger } from '../infra/logger';
import { buildApp } from './server';
import { approvalGate } from '../domain/approvals/temporal';
import { campaignWaker } from '../domain/campaigns/temporal';
import { agentScheduler } from '../domain/agents/temporal';
import { bookingDesk } from '../domain/appointments/temporal';
import { connectClient } from '../infra/temporal-client';

export type RunningApi = { url: string; server: Server; close: () => Promise<void> };

/** Serves the API; `close` stops accepting connections and waits for in-flight requests. */
export async function listenApi(
  config: Config,
  db: DataSource,
  log: Logger,
  opts: { crashAfterCommit?: number } = {},
): Promise<RunningApi> {
  // Temporal is dialled on the first parked approval request (or booking), so the API starts (and serves REST)
  // whether or not Temporal is up yet.
  let temporal: Promise<Awaited<ReturnType<typeof connectClient>>> | undefined;
  const client = async () => {
    temporal ??= connectClient(config.temporalAddress, config.temporalNamespace).catch((err: unknown) => {
      temporal = undefined;
      throw err;
    });
    return (await temporal).client;
  };
  const approvals = approvalGate(db, client, config.temporalTaskQueue);
  const campaigns = campaignWaker(client);
  const appointments = bookingDesk(db, client, config.temporalTaskQueue);
  const agents = { schedule: agentScheduler(client, config.temporalTaskQueue).describe };
  const app = buildApp({
    db,
    config,
    log,
    approvals,
    campaigns,
    appointments,
    agents,
    crashAfterCommit: opts.crashAfterCommit,
  });
  const server = app.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  return {
    url: `http://${host}:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }).then(async () => {
        if (temporal) await (await temporal.catch(() => undefined))?.close();
      }),
  };
}
