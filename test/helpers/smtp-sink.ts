import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export type Received = { to: string[]; raw: string; mail: ParsedMail };

/**
 * A real SMTP server on loopback that keeps every message it accepts, parsed. A recipient can be told
 * to answer an SMTP error (550 for a hard bounce, 451 for a transient failure), and the whole server
 * can be made to refuse for a while.
 */
export async function startSmtpSink() {
  const received: Received[] = [];
  const rcptFailures = new Map<string, { code: number; message: string }>();
  let down: { code: number; message: string } | undefined;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const failure = down ?? rcptFailures.get(address.address.toLowerCase());
      if (!failure) return callback();
      const err = new Error(failure.message) as Error & { responseCode: number };
      err.responseCode = failure.code;
      callback(err);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw)
          .then((mail) => {
            received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, mail });
            callback();
          })
          .catch((err: Error) => callback(err));
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    received,
    /** Mail to this address is refused with this SMTP reply. */
    refuse: (address: string, code: number, message: string) =>
      rcptFailures.set(address.toLowerCase(), { code, message }),
    /** Every recipient is refused with this reply until `up()`. */
    down: (code = 421, message = 'Service not available, try again later') => {
      down = { code, message };
    },
    up: () => {
      down = undefined;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
