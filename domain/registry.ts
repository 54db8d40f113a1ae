import type { DataSource } from 'typeorm';
import * as agents from './agents';
import * as analytics from './analytics';
import * as appointments from './appointments';
import * as approvals from './approvals';
import * as campaigns from './campaigns';
import * as connections from './connections';
import * as conversations from './conversations';
import * as identity from './identity';
import { onAuthorityLost, registerOperations } from './kernel/gate';
import { Data } from './kernel/data';
import type { AnyOperation, Ports, Services } from './kernel/operation';
import type { AnyOutbox } from './kernel/outbox';
import { plugAreas } from './kernel/wiring';
import * as leads from './leads';
import * as oauth from './oauth';
import * as prospects from './prospects';
import * as sales from './sales';
import * as webhooks from './webhooks';

/**
 * The areas, each once, lowest first: an area imports only the kernel and the areas before it (the
 * rank .dependency-cruiser.cjs enforces). A lower area that must let a higher one act raises a hook;
 * the higher one's `listen` adds its handler, here, where the areas meet.
 */
export const AREAS = [
  identity,
  webhooks,
  connections,
  oauth,
  leads,
  conversations,
  appointments,
  sales,
  campaigns,
  prospects,
  agents,
  analytics,
  approvals,
] as const;

/** Every operation, by area; each door looks them up here by name. */
const operations: Record<string, AnyOperation> = {};
for (const area of AREAS) Object.assign(operations, area.operations);

const byName = new Map<string, AnyOperation>(
  Object.values(operations).map((op): [string, AnyOperation] => [op.name, op]),
);
const declared = AREAS.reduce((n, area) => n + Object.keys(area.operations).length, 0);
if (byName.size !== declared) throw new Error('two operations share a name');

/** The operation registered under `name` (`lead.set_status`), or undefined. */
export const operationNamed = (name: string): AnyOperation | undefined => byName.get(name);

/**
 * Every outbox, by area, in the areas' order: rows written with a change that each need a durable job
 * started (the relay reads them, woken by the NOTIFY that names one).
 */
const outboxes: readonly AnyOutbox[] = AREAS.flatMap((area) =>
  'outboxes' in area ? Object.values<AnyOutbox>(area.outboxes) : [],
);
if (new Set(outboxes.map((o) => o.name)).size !== outboxes.length)
  throw new Error('two outboxes share a name');

/** Every registered outbox. */
export const allOutboxes = (): readonly AnyOutbox[] => outboxes;

let wired = false;

/**
 * Connects the areas, once per process: each higher area's handlers on the hooks lower ones raise,
 * the approvals area on identity's loss of authority, the gate on the registered operations, and what
 * the kernel's statements need of the areas. `composeServices` does it, and every door's services
 * come from there: no door runs an operation with the areas left unconnected.
 */
function wireAreas() {
  if (wired) return;
  wired = true;
  for (const area of AREAS) if ('listen' in area) area.listen();
  // Identity takes authority away (a key revoked, a member demoted or removed); the approvals area
  // withdraws what was parked on it. Wired here, where the areas meet, so neither imports the other.
  onAuthorityLost((data, loss, services) =>
    approvals.withdrawOnLostAuthority(data, loss, services, (name) => operationNamed(name)?.requirement),
  );
  registerOperations(operationNamed);
  // What the kernel's statements need of the areas, without naming them: the webhooks area's fan-out
  // of every event, identity's workspaces.
  plugAreas({
    fanOut: webhooks.deliveryFanOut,
    workspaceExists: async (m, id) => (await identity.workspaceNamed(new Data(m, undefined), id)) !== null,
  });
}

/**
 * A process's services, whole: the ports its composition root built, with its database, once the
 * areas are connected. The one way to make `Services`: a door built without a part (the approval gate)
 * does not compile.
 */
export function composeServices(parts: Ports & { db: DataSource }): Services {
  wireAreas();
  return parts as Services;
}

/** Every registered operation, sorted by name (a deterministic order for tool lists and docs). */
export const allOperations = (): AnyOperation[] =>
  [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
