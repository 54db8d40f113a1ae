import type { DataSource } from 'typeorm';
import type { Logger } from '../../infra/logger';
import { bareSender, type Envelope, type Sent } from './bare-sender';
import { checkDeliveries, waitForReceipts, type DeliveryFigures } from './delivery-check';
import { paced, withConcurrency } from './pacing';
import { CONCURRENCY, STEADY_RATE } from './path-phases';
import type { WebhookStack } from './webhook-stack';

export type BaselineFigures = DeliveryFigures & { non_2xx: number };

/** The very bytes the whole path sent for these events, in the same order. */
async function envelopesOf(db: DataSource, ids: string[]): Promise<Envelope[]> {
  const rows = await db.query<{ id: string; type: string; envelope: string }[]>(
    `SELECT id, type, envelope FROM events WHERE id = ANY($1)`,
    [ids],
  );
  const byId = new Map(rows.map((r) => [r.id, { id: r.id, type: r.type, body: r.envelope }]));
  return ids.map((id) => byId.get(id)!);
}

async function measure(
  s: WebhookStack,
  envelopes: Envelope[],
  what: string,
  log: Logger,
  run: (send: (i: number) => Promise<Sent>) => Promise<Sent[]>,
): Promise<BaselineFigures> {
  const sender = bareSender(s.receiver.url('baseline'), s.baselineSecret, CONCURRENCY);
  try {
    const sent = await run((i) => sender.send(envelopes[i]!));
    const inbox = s.receiver.inbox('baseline');
    const expected = sent.map((x) => ({ id: x.id, t0: x.sentAt }));
    await waitForReceipts(inbox, expected, { what, log, stallMs: 10_000, gone: () => undefined });
    return { ...checkDeliveries(inbox, expected), non_2xx: sent.filter((x) => x.status >= 300).length };
  } finally {
    sender.close();
  }
}

/**
 * The same bodies signed and POSTed by a bare loop, first at concurrency 50, then paced at 10/s.
 * Each phase uses its own events, so a receipt can never be taken for the other phase's.
 */
export async function runBaseline(
  s: WebhookStack,
  throughputIds: string[],
  latencyIds: string[],
  log: Logger,
) {
  log.info(`baseline throughput: sign + POST ${throughputIds.length} bodies at concurrency ${CONCURRENCY}`);
  const bodies = await envelopesOf(s.db, throughputIds);
  const throughput = await measure(s, bodies, 'baseline throughput', log, (send) =>
    withConcurrency(bodies.length, CONCURRENCY, send),
  );
  log.info(`baseline latency: ${STEADY_RATE} POSTs/s, ${latencyIds.length} bodies`);
  const paced10 = await envelopesOf(s.db, latencyIds);
  const latency = await measure(s, paced10, 'baseline latency', log, (send) =>
    paced(STEADY_RATE, paced10.length, send),
  );
  return { throughput, latency };
}
