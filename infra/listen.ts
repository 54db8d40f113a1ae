import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Waits until `server`, told to listen on `host`, does; answers the URL a client on this machine dials. */
export async function listening(server: Server, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const bound = (server.address() as AddressInfo).port;
  return `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${bound}`;
}

/** Stops accepting connections and waits for the open ones; idle keep-alive sockets are closed now. */
export const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
