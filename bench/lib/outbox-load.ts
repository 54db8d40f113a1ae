import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { DataSource } from 'typeorm';
import { emitEvent } from '../../domain/kernel/events';
import { deliveryFanOut } from '../../domain/webhooks/fan-out';
import { FIRST_NAMES, LAST_NAMES, POSTCODES, SOURCES } from './seed-data';
import { sequence } from './traffic';

export const EVENT_TYPE = 'lead.created';

/** `committedAt` is performance.now(); `committedWall` is Date.now(), to line up with the worker's clock. */
export type Committed = { id: string; committedAt: number; committedWall: number };

const r = sequence(29);
// Numbers every event of the run, so each lead gets its own email and phone.
let numbered = 0;

/** Numbers this process's events from `n` on: a second writer process keeps apart from the first. */
export function numberEventsFrom(n: number): void {
  numbered = n;
}
const pick = <T>(items: readonly T[]) => items[r(items.length)]!;

/** The fields intake puts in lead.created (its published schema allows no others): about 400 bytes. */
function leadCreatedFields(n: number) {
  const leadId = randomUUID();
  const first = pick(FIRST_NAMES);
  const last = pick(LAST_NAMES);
  return {
    leadId,
    fields: {
      lead_id: leadId,
      first_name: first,
      last_name: last,
      email: `${first}.${last}.wh${n}@example.com`.toLowerCase(),
      phone: `+44770${String(900_000 + n).padStart(7, '0')}`,
      postcode: pick(POSTCODES),
      status: 'NEW',
      source_type: 'ad_form',
      source: pick(SOURCES),
    },
  };
}

/**
 * The operation side of the path: one transaction that writes the event and its deliveries (the
 * outbox) and notifies the relay. Commit time is taken the moment the commit is acknowledged.
 */
export async function commitEvent(db: DataSource, workspaceId: string): Promise<Committed> {
  const { leadId, fields } = leadCreatedFields(++numbered);
  const id = await db.transaction((m) =>
    emitEvent(m, deliveryFanOut, workspaceId, EVENT_TYPE, { type: 'lead', id: leadId }, fields),
  );
  return { id, committedAt: performance.now(), committedWall: Date.now() };
}
