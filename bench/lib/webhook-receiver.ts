import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { verifyWebhook } from '../../receiver/verify';

/**
 * `ok` answers 204, `fail` 503 (every attempt parks in the retry ladder), `baseline` 204, `quiet` 204
 * (the second workspace of the noisy-neighbour phase).
 */
export type ReceiverPath = 'ok' | 'fail' | 'baseline' | 'quiet';

/** `at` is performance.now() once the body is in; `wall` is Date.now(), to line up with other processes. */
export type Receipt = { attempt: number; at: number; wall: number };

export type Inbox = {
  /** Verified receipts by event id, in arrival order. */
  byEvent: Map<string, Receipt[]>;
  requests: number;
  badSignatures: number;
};

const PATHS: readonly ReceiverPath[] = ['ok', 'fail', 'baseline', 'quiet'];

/** Files a verified receipt under its event id. */
export function addReceipt(inbox: Inbox, eventId: string, receipt: Receipt): void {
  const receipts = inbox.byEvent.get(eventId);
  if (receipts) receipts.push(receipt);
  else inbox.byEvent.set(eventId, [receipt]);
}

/**
 * A customer's receiver on loopback, in the bench process so receipt times share a clock with
 * commit times: it verifies every signature with the published helper (receiver/verify.ts) and
 * answers 401 to a bad one, so a delivery with a wrong signature counts as lost, never received.
 */
export async function startReceiver() {
  const secrets = new Map<ReceiverPath, string>();
  const inboxes = new Map<ReceiverPath, Inbox>(
    PATHS.map((p) => [p, { byEvent: new Map(), requests: 0, badSignatures: 0 }]),
  );
  const server = http.createServer((req, res) => {
    const path = req.url?.slice(1) as ReceiverPath;
    const inbox = inboxes.get(path);
    const secret = secrets.get(path);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const wall = Date.now();
      if (!inbox || !secret) {
        res.writeHead(404).end();
        return;
      }
      inbox.requests += 1;
      const header = req.headers['service-signature'];
      const verified = verifyWebhook({
        payload: Buffer.concat(chunks),
        signatureHeader: typeof header === 'string' ? header : undefined,
        secret,
      });
      if (!verified.ok) {
        inbox.badSignatures += 1;
        res.writeHead(401).end();
        return;
      }
      addReceipt(inbox, verified.event.id, {
        attempt: Number(req.headers['service-delivery-attempt']),
        at,
        wall,
      });
      res.writeHead(path === 'fail' ? 503 : 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: ReceiverPath) => `http://127.0.0.1:${port}/${path}`,
    setSecret: (path: ReceiverPath, secret: string) => secrets.set(path, secret),
    inbox: (path: ReceiverPath) => inboxes.get(path)!,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
