import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * An SMTP server on loopback that accepts everything and counts messages by their Message-ID (read
 * from the header block, nothing parsed beyond it), so a bench can say how many arrived, how fast,
 * and whether any arrived twice.
 */
export async function startSmtpCounter() {
  const seen = new Map<string, number>();
  let total = 0;
  let firstAt = 0;
  let lastAt = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 1024 * 1024,
    onData(stream, _session, callback) {
      let head = '';
      stream.on('data', (c: Buffer) => {
        if (head.length < 8_192) head += c.toString('latin1');
      });
      stream.on('end', () => {
        const id = /^Message-ID:\s*(<[^>]+>)/im.exec(head)?.[1] ?? `none-${total}`;
        seen.set(id, (seen.get(id) ?? 0) + 1);
        total++;
        lastAt = performance.now();
        if (total === 1) firstAt = lastAt;
        callback();
      });
    },
  });
  // A sender killed mid-session resets its connection; a real server notes it and serves the rest.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    total: () => total,
    duplicates: () => [...seen.values()].filter((n) => n > 1).length,
    /** Messages per second from the first to the last arrival since `reset`. */
    rate: () => (total > 1 ? ((total - 1) * 1000) / (lastAt - firstAt) : 0),
    reset: () => {
      seen.clear();
      total = 0;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type SmtpCounter = Awaited<ReturnType<typeof startSmtpCounter>>;
