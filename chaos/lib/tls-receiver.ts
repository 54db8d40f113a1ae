import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { HitLog } from './hits';
import { selfSignedCertificate } from './self-signed';

/**
 * An https receiver whose certificate no sender may trust (self-signed). A request that reaches it
 * means the sender skipped verification; handshakes it refused are counted instead.
 */
export async function startTlsReceiver(hits: HitLog) {
  const { key, cert, madeWith } = selfSignedCertificate();
  let refusedHandshakes = 0;
  const server = https.createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const h = (name: string) => {
        const v = req.headers[name];
        return typeof v === 'string' ? v : undefined;
      };
      const hit = hits.record(
        req.url ?? '',
        Buffer.concat(chunks),
        h('service-signature'),
        h('service-delivery-attempt'),
      );
      hit.outcome = 'answered 204 (the sender trusted a self-signed certificate)';
      res.writeHead(204).end();
    });
  });
  server.on('tlsClientError', () => (refusedHandshakes += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `https://127.0.0.1:${port}${path}`,
    certificateMadeWith: madeWith,
    refusedHandshakes: () => refusedHandshakes,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
