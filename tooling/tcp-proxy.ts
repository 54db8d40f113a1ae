import net from 'node:net';

export type TcpProxy = Awaited<ReturnType<typeof startTcpProxy>>;

/**
 * A TCP proxy on loopback to `target` (host:port) that can make the link slow, as a network is:
 * - `stall()` holds what either side sends until `resume()`, so a client behind it sees a server gone
 *   silent (its calls wait, its connections stay up), then everything held goes through in order;
 * - `latency(ms)` delays every chunk each way by `ms` (a round trip costs twice that), as a database in
 *   another zone adds to each statement; `latency(0)` is loopback again. Order is kept either way.
 * A closed side closes the other; `close()` ends every connection.
 */
export async function startTcpProxy(target: string) {
  const at = target.lastIndexOf(':');
  const upstreamAt = { host: target.slice(0, at), port: Number(target.slice(at + 1)) };
  const sockets = new Set<net.Socket>();
  const held: (() => void)[] = [];
  let stalled = false;
  let oneWayMs = 0;

  /** Everything `from` sends goes to `to` after the link's latency, or waits while the proxy is stalled. */
  const forward = (from: net.Socket, to: net.Socket) => {
    // Chunks not yet due, oldest first, and the one timer that sends them when they are.
    const queue: { due: number; chunk: Buffer }[] = [];
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      timer = undefined;
      const now = performance.now();
      while (queue.length > 0 && queue[0]!.due <= now) to.write(queue.shift()!.chunk);
      if (queue.length > 0) timer = setTimeout(flush, queue[0]!.due - now);
    };
    const send = (chunk: Buffer) => {
      if (oneWayMs === 0 && queue.length === 0) return void to.write(chunk);
      // Never before a chunk already queued, so a latency lowered mid-stream keeps the order.
      const due = Math.max(performance.now() + oneWayMs, queue.at(-1)?.due ?? 0);
      queue.push({ due, chunk });
      timer ??= setTimeout(flush, Math.max(0, due - performance.now()));
    };
    from.on('data', (chunk: Buffer) => {
      if (stalled) held.push(() => send(chunk));
      else send(chunk);
    });
    to.on('close', () => {
      if (timer) clearTimeout(timer);
      queue.length = 0;
    });
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(upstreamAt.port, upstreamAt.host);
    forward(client, upstream);
    forward(upstream, client);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.setNoDelay(true);
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
    port,
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
      for (const send of held.splice(0)) send();
    },
    /** Each chunk, each way, arrives `ms` after it was sent (0: at once). */
    latency: (ms: number) => {
      oneWayMs = ms;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
