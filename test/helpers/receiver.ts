import { waitFor } from '../../tooling/processes';
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../../receiver/verify';

export type Received = {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
  /** Verified with the receiver helper. */
  helperOk: boolean;
  /** Verified with an HMAC computed here, independently of the helper. */
  independentOk: boolean;
};

/** What the receiver answers; `hang` never answers. */
export type Answer = { status: number; headers?: Record<string, string> } | 'hang';

function independentCheck(header: string | undefined, body: string, secret: string): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((p) => p.split('=') as [string, string]));
  if (!parts.t || !parts.v1) return false;
  const expected = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A real HTTP receiver on loopback that verifies signatures the way a customer would. */
export async function startReceiver(answer: (r: Received) => Answer = () => ({ status: 204 })) {
  let secret = '';
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const sig = req.headers['service-signature'] as string | undefined;
      const r: Received = {
        path: req.url ?? '',
        headers: req.headers,
        body,
        at: Date.now(),
        helperOk: verifyWebhook({ payload: body, signatureHeader: sig, secret }).ok,
        independentOk: independentCheck(sig, body, secret),
      };
      received.push(r);
      const a = answer(r);
      if (a === 'hang') {
        hanging.add(res);
        res.once('close', () => hanging.delete(res));
        return;
      }
      res.writeHead(a.status, a.headers);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    setSecret: (s: string) => {
      secret = s;
    },
    /** Requests still held open: a sender that gives up closes its connection. */
    hangingNow: () => hanging.size,
    /** Answers every request held open (`hang`) with `status`, as a slow receiver finally does. */
    answerHanging: (status: number) => {
      for (const res of hanging) res.writeHead(status).end();
    },
    ofType: (type: string) => received.filter((r) => r.headers['service-event-type'] === type),
    /** The first event of a type whose data passes `ok`, as it arrives (polled up to 30 s). */
    eventOf: (type: string, ok: (data: Record<string, unknown>) => boolean) =>
      waitFor(
        `${type} at the receiver`,
        async () =>
          received
            .filter((r) => r.headers['service-event-type'] === type)
            .map((r) => JSON.parse(r.body) as { data: Record<string, unknown> })
            .find((e) => ok(e.data)),
        30_000,
        50,
      ),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
