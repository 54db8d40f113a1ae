import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export type Received = {
  /** The envelope sender (MAIL FROM): where the receiving side sends a bounce. */
  from: string;
  to: string[];
  raw: string;
  mail: ParsedMail;
  at: number;
  /**
   * When its recipients were accepted (its session's last RCPT TO): a message accepted before the
   * server went down still completes its DATA after, as a real server's would.
   */
  acceptedAt: number;
};

/** A message whose DATA is in and whose 250 is held back; `gone` once its sender hung up. */
type Held = { messageId: string | undefined; answer: () => void; gone: () => boolean };

/**
 * A real SMTP server on loopback that keeps every message it accepts, parsed. A recipient can be told
 * to answer an SMTP error (550 for a hard bounce, 451 for a transient failure), the whole server can
 * be made to refuse for a while, and the final 250 can be held back to keep hand-overs in flight.
 */
export async function startSmtpSink(
  opts: {
    /**
     * Runs once a message is in and kept, before its 250 goes back: a receiving server that reports
     * on it at once (a bounce report posted to the sender's inbound route, say).
     */
    onMessage?: (r: Received) => Promise<void>;
  } = {},
) {
  const received: Received[] = [];
  const rcptFailures = new Map<string, { code: number; message: string }>();
  let down: { code: number; message: string } | undefined;
  let holding = false;
  const held = new Set<Held>();
  const closedSessions = new Set<string>();
  const acceptedAt = new Map<string, number>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, session, callback) {
      const failure = down ?? rcptFailures.get(address.address.toLowerCase());
      if (!failure) {
        acceptedAt.set(session.id, Date.now());
        return callback();
      }
      const err = new Error(failure.message) as Error & { responseCode: number };
      err.responseCode = failure.code;
      callback(err);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const take = async () => {
          const mail = await simpleParser(raw);
          // Kept once the whole message is in, as a real server queues it before its 250: a sender
          // that dies before it reads the 250 has still sent it.
          const r: Received = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((t) => t.address),
            raw,
            mail,
            at: Date.now(),
            acceptedAt: acceptedAt.get(session.id) ?? Date.now(),
          };
          received.push(r);
          await opts.onMessage?.(r);
          if (!holding) return callback();
          held.add({
            messageId: mail.messageId,
            answer: () => callback(),
            gone: () => closedSessions.has(session.id),
          });
        };
        take().catch((err: Error) => callback(err));
      });
    },
    onClose(session) {
      closedSessions.add(session.id);
      acceptedAt.delete(session.id);
    },
  });
  // A sender killed mid-session resets its connection; a real server notes it and serves the rest.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    received,
    /** How many times each Message-ID arrived. */
    countsByMessageId: () => {
      const counts = new Map<string, number>();
      for (const r of received)
        if (r.mail.messageId) counts.set(r.mail.messageId, (counts.get(r.mail.messageId) ?? 0) + 1);
      return counts;
    },
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
    /** While on, a message is kept once its DATA is in, but its 250 is not sent. */
    hold: (on: boolean) => (holding = on),
    heldCount: () => held.size,
    /** Held messages whose sender hung up. */
    heldSendersGone: () => [...held].filter((h) => h.gone()).length,
    /** Answers every held message (a sender gone hears nothing); returns the Message-IDs whose sender was gone. */
    releaseHeld: (): string[] => {
      const cut = [...held].filter((h) => h.gone()).map((h) => h.messageId ?? '');
      for (const h of held) h.answer();
      held.clear();
      return cut;
    },
    stop: () => {
      held.clear();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type SmtpSink = Awaited<ReturnType<typeof startSmtpSink>>;
