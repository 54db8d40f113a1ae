/**
 * Minimal webhook receiver: `WEBHOOK_SECRET=whsec_... npx tsx receiver/example-receiver.ts` (PORT, default 4000).
 * Verifies the raw body, drops redeliveries, answers 200 at once and does the work afterwards.
 */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { verifyWebhook, type WebhookEvent } from './verify';

export type ReceiverOptions = {
  secret: string;
  /** Runs after the 200 is sent. Default: log the event type. */
  onEvent?: (event: WebhookEvent) => void | Promise<void>;
  log?: (line: string) => void;
};

const MAX_BODY_BYTES = 1024 * 1024;
// Bounded so a long-running process does not grow forever; redeliveries arrive within days, not millions of events.
const MAX_REMEMBERED_IDS = 100_000;

async function readRawBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Keep reading past the limit (without buffering) so the 413 can still be written on this connection.
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  return size <= MAX_BODY_BYTES ? Buffer.concat(chunks) : undefined;
}

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
}

/** A `node:http` request listener; exported so it can be mounted in tests or another server. */
export function createReceiver(opts: ReceiverOptions): RequestListener {
  const log = opts.log ?? ((line: string) => console.log(line));
  const onEvent = opts.onEvent ?? ((event: WebhookEvent) => log(`event ${event.type} ${event.id}`));
  // Delivery is at-least-once. In production keep this in your database, in the same transaction as the work.
  const seen = new Set<string>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return reply(res, 405, 'method not allowed');
    const body = await readRawBody(req);
    if (!body) return reply(res, 413, 'payload too large');

    const header = req.headers['service-signature'];
    const result = verifyWebhook({
      payload: body,
      signatureHeader: Array.isArray(header) ? header.join(',') : header,
      secret: opts.secret,
    });
    if (!result.ok) {
      // The reason stays in our log: telling the caller which check failed only helps a forger.
      log(`rejected delivery: ${result.reason}`);
      return reply(res, 400, 'invalid webhook');
    }

    // Dedupe on the signed envelope id (the service-event-id header carries the same value, but is unsigned).
    const { event } = result;
    if (seen.has(event.id)) {
      log(`duplicate ${event.id} ignored`);
      return reply(res, 200, 'ok');
    }
    seen.add(event.id);
    if (seen.size > MAX_REMEMBERED_IDS) seen.delete(seen.values().next().value as string);

    // Answer before working so the sender gets its 2xx well inside its 10 s timeout.
    reply(res, 200, 'ok');
    setImmediate(() => {
      Promise.resolve()
        .then(() => onEvent(event))
        .catch((err: unknown) => log(`handler failed for ${event.id}: ${String(err)}`));
    });
  }

  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`receiver error: ${String(err)}`);
      if (!res.headersSent) reply(res, 500, 'error');
      else res.end();
    });
  };
}

function main(): void {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error('Set WEBHOOK_SECRET to the endpoint signing secret (whsec_...).');
    process.exit(1);
  }
  const port = Number(process.env.PORT ?? 4000);
  createServer(createReceiver({ secret })).listen(port, () => {
    console.log(`webhook receiver listening on http://localhost:${port}`);
  });
}

if (require.main === module) main();
