import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import type { Config } from '../infra/config';
import type { Logger } from '../infra/logger';
import { buildApp } from './server';

export type RunningApi = { url: string; server: Server; close: () => Promise<void> };

/** Serves the API; `close` stops accepting connections and waits for in-flight requests. */
export async function listenApi(config: Config, db: DataSource, log: Logger): Promise<RunningApi> {
  const app = buildApp({ db, config, log });
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
      }),
  };
}
