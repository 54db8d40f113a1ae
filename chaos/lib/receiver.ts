import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { verifyWebhook } from '../../receiver/verify';
import { HitLog, type Hit } from './hits';

/** One arrival of an event at the main endpoint. */
export type Receipt = {
  attempt: number;
  at: number;
  /** A 2xx went back over a connection whose sender was still there: the event counts as received. */
  accepted: boolean;
  /** Held open, then found its sender gone (killed mid-attempt). */
  senderGone: boolean;
};

const BIG_BYTES = 10 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

/** The overload fault's endpoints (`--cluster`): `/overload/<n>`. */
export const OVERLOAD_PATH = '/overload/';

/**
 * The loopback receiver: `/main` is the endpoint every steady-load event goes to (answers 204 at
 * once, or holds requests open while `hold` is on); `/overload/<n>` the overload fault's endpoints
 * (204 at once); `/f/<case>` are the fault endpoints, each with its own misbehaviour on the first
 * attempt and a 204 from the second on, so the ladder can be seen to move on. Every request is
 * verified with the published helper, as a customer would.
 */
export async function startReceiver() {
  const main = new Map<string, Receipt[]>();
  /** Arrivals at the overload endpoints, by `<path> <event id>`. */
  const overload = new Map<string, Receipt[]>();
  const overloadSecrets = new Map<string, string>();
  const hits = new HitLog();
  let mainSecret = '';
  let holding = false;
  type Held = { eventId: string; answer: () => void; gone: () => boolean };
  const held = new Set<Held>();
  let badSignatures = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    // A sender that hangs up (killed, or its deadline passed) half-closes or closes the socket.
    let gone = false;
    const socket: Socket = req.socket;
    const markGone = () => (gone = true);
    socket.once('end', markGone);
    socket.once('close', markGone);
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const signature = header(req, 'service-signature');
      const attempt = header(req, 'service-delivery-attempt');
      const path = req.url ?? '';
      /**
       * The request verified with `secret` as a customer would (401 and counted when it fails), and its
       * receipt kept under `keyOf(event id)` in `into`; undefined when refused.
       */
      const received = (
        secret: string | undefined,
        into: Map<string, Receipt[]>,
        keyOf: (eventId: string) => string,
      ) => {
        const verified = secret
          ? verifyWebhook({ payload: body, signatureHeader: signature, secret })
          : undefined;
        if (!verified?.ok) {
          badSignatures += 1;
          res.writeHead(401).end();
          return undefined;
        }
        const receipt: Receipt = {
          attempt: Number(attempt),
          at: Date.now(),
          accepted: false,
          senderGone: false,
        };
        const key = keyOf(verified.event.id);
        into.set(key, [...(into.get(key) ?? []), receipt]);
        return { receipt, eventId: verified.event.id };
      };
      if (path === '/main') {
        const got = received(mainSecret, main, (id) => id);
        if (!got) return;
        const { receipt, eventId } = got;
        const answer = () => {
          if (gone) {
            receipt.senderGone = true;
            socket.destroy();
            return;
          }
          res.once('finish', () => (receipt.accepted = !gone));
          res.writeHead(204).end();
        };
        if (holding) held.add({ eventId, answer, gone: () => gone });
        else answer();
        return;
      }
      if (path.startsWith(OVERLOAD_PATH)) {
        const got = received(overloadSecrets.get(path), overload, (id) => `${path} ${id}`);
        if (!got) return;
        res.once('finish', () => (got.receipt.accepted = !gone));
        res.writeHead(204).end();
        return;
      }
      const hit = hits.record(path, body, signature, attempt);
      const behave = hit.attempt >= 2 && path !== '/f/redirect-target' ? answerNow(204) : BEHAVIOURS[path];
      if (!behave) {
        hit.outcome = 'no such path: answered 404';
        res.writeHead(404).end();
        return;
      }
      behave(res, hit, () => gone, socket);
    });
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;

  type Behaviour = (res: http.ServerResponse, hit: Hit, gone: () => boolean, socket: Socket) => void;
  const answerNow =
    (status: number, headers: Record<string, string> = {}): Behaviour =>
    (res, hit) => {
      res.writeHead(status, headers).end();
      hit.outcome = `answered ${status}`;
    };
  const answerAfter =
    (ms: number): Behaviour =>
    (res, hit, gone, socket) => {
      const since = Date.now();
      setTimeout(() => {
        if (gone()) {
          hit.outcome = `sender gone before the answer (${Date.now() - since} ms)`;
          socket.destroy();
        } else answerNow(204)(res, hit, gone, socket);
      }, ms);
    };
  const BEHAVIOURS: Record<string, Behaviour> = {
    '/f/408': answerNow(408),
    '/f/429': answerNow(429, { 'retry-after': '1' }),
    '/f/307': answerNow(307, { location: `${base}/f/redirect-target` }),
    '/f/redirect-target': answerNow(204),
    '/f/at-9900': answerAfter(9_900),
    '/f/at-10100': answerAfter(10_100),
    // Headers at once, then a byte a second: the whole answer cannot arrive within 10 s.
    '/f/drip': (res, hit, gone) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '30' });
      let sent = 0;
      const since = Date.now();
      const timer = setInterval(() => {
        if (gone() || sent >= 30) {
          clearInterval(timer);
          hit.outcome = `dripped ${sent} bytes; sender gone after ${Date.now() - since} ms`;
          res.destroy();
          return;
        }
        res.write('x');
        sent += 1;
      }, 1_000);
    },
    // 10 MiB, written as fast as the sender reads it; it should stop reading long before the end.
    '/f/big': (res, hit, gone) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(BIG_BYTES) });
      let written = 0;
      const pump = () => {
        while (!gone() && written < BIG_BYTES) {
          written += CHUNK.length;
          if (!res.write(CHUNK)) {
            res.once('drain', pump);
            return;
          }
        }
        hit.bytesWritten = written;
        hit.outcome = written >= BIG_BYTES ? 'wrote all 10 MiB' : `sender hung up after ${written} bytes`;
        if (written >= BIG_BYTES) res.end();
      };
      res.once('close', () => {
        hit.bytesWritten = written;
        if (hit.outcome === 'pending') hit.outcome = `sender hung up after ${written} bytes`;
      });
      pump();
    },
    // A 200 status line and a tenth of the promised body, then a TCP reset.
    '/f/reset-body': (res, hit, _gone, socket) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
      res.write(Buffer.alloc(100, 'x'));
      setTimeout(() => {
        socket.resetAndDestroy();
        hit.outcome = 'answered 200 headers and 100 of 1000 body bytes, then reset';
      }, 200);
    },
  };

  return {
    url: (path: string) => base + path,
    main,
    hits,
    badSignatures: () => badSignatures,
    setMainSecret: (secret: string) => (mainSecret = secret),
    overload,
    setOverloadSecret: (path: string, secret: string) => overloadSecrets.set(path, secret),
    /** While on, main-endpoint requests are read and then left unanswered. */
    hold: (on: boolean) => (holding = on),
    heldCount: () => held.size,
    /** Held requests whose sender hung up. */
    heldSendersGone: () => [...held].filter((h) => h.gone()).length,
    /**
     * Answers every held request whose sender is still there (the rest are recorded as gone) and
     * returns the events of those whose sender was gone.
     */
    releaseHeld: (): string[] => {
      const cut = [...held].filter((h) => h.gone()).map((h) => h.eventId);
      for (const h of held) h.answer();
      held.clear();
      return cut;
    },
    close: async () => {
      held.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const header = (req: http.IncomingMessage, name: string) => {
  const v = req.headers[name];
  return typeof v === 'string' ? v : undefined;
};
