import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A collector on loopback that takes OTLP/HTTP trace exports and drops them, counting what arrived:
 * what a worker with tracing on pays to export, without a real collector's CPU on this machine.
 */
export async function startOtlpSink() {
  let exports = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => ({ exports, bytes }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
