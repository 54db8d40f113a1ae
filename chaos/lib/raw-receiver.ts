import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { HitLog } from './hits';

const HEAD_END = '\r\n\r\n';

/**
 * Fault endpoints that need the bytes on the wire under our control, which Node's HTTP server
 * does not give: `/raw/1xx` answers `102 Processing` every half second and never a final status;
 * `/raw/reset-headers` sends half a status block, then a TCP reset. From the second attempt on,
 * both answer 204.
 */
export async function startRawReceiver(hits: HitLog) {
  const server = net.createServer((socket) => {
    let buffered = Buffer.alloc(0);
    let handled = false;
    let open = true;
    socket.on('close', () => (open = false));
    socket.on('error', () => undefined);
    socket.on('data', (data: Buffer) => {
      if (handled) return;
      buffered = Buffer.concat([buffered, data]);
      const headEnd = buffered.indexOf(HEAD_END);
      if (headEnd < 0) return;
      const head = buffered.subarray(0, headEnd).toString('latin1').split('\r\n');
      const headers = new Map(
        head.slice(1).map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as const;
        }),
      );
      const length = Number(headers.get('content-length') ?? 0);
      const body = buffered.subarray(headEnd + HEAD_END.length);
      if (body.length < length) return;
      handled = true;
      const path = head[0]!.split(' ')[1] ?? '';
      const hit = hits.record(
        path,
        body.subarray(0, length),
        headers.get('service-signature'),
        headers.get('service-delivery-attempt'),
      );
      if (hit.attempt >= 2) {
        socket.end('HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n');
        hit.outcome = 'answered 204';
        return;
      }
      if (path === '/raw/reset-headers') {
        socket.write('HTTP/1.1 200 OK\r\nContent-Le');
        setTimeout(() => {
          socket.resetAndDestroy();
          hit.outcome = 'sent half a status block, then reset';
        }, 100);
        return;
      }
      // Endless interim answers: each one is a complete 1xx, and no final status ever comes.
      const since = Date.now();
      let interim = 0;
      const tick = () => {
        if (!open) {
          hit.outcome = `wrote ${interim} x 102; sender gone after ${Date.now() - since} ms`;
          return;
        }
        socket.write('HTTP/1.1 102 Processing\r\n\r\n');
        hit.informational = ++interim;
        setTimeout(tick, 500);
      };
      tick();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
