import net from 'node:net';

/** A free TCP port on loopback, preferring `preferred` when it is free. */
export async function freePort(preferred = 0): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number | undefined>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(undefined));
      srv.listen(port, '127.0.0.1', () => {
        const addr = srv.address();
        srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : undefined));
      });
    });
  return (preferred ? await tryPort(preferred) : undefined) ?? (await tryPort(0))!;
}
