import net from 'node:net';

/**
 * A TCP proxy on loopback to `target` (host:port) that can stall: while stalled it holds what either
 * side sends, so a client behind it sees a server gone slow (its calls wait, its connections stay up),
 * and on `resume` what was held goes through in order.
 */
export async function startStallingProxy(target: string) {
  const at = target.lastIndexOf(':');
  const upstreamAt = { host: target.slice(0, at), port: Number(target.slice(at + 1)) };
  const sockets = new Set<net.Socket>();
  const held: (() => void)[] = [];
  let stalled = false;
  /** Everything `from` sends goes to `to`, or waits while the proxy is stalled. */
  const forward = (from: net.Socket, to: net.Socket) =>
    from.on('data', (chunk: Buffer) => {
      if (stalled) held.push(() => to.write(chunk));
      else to.write(chunk);
    });
  const server = net.createServer((client) => {
    const upstream = net.connect(upstreamAt.port, upstreamAt.host);
    forward(client, upstream);
    forward(upstream, client);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined).on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
      for (const send of held.splice(0)) send();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
