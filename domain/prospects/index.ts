/**
 * The prospects area: prospect lists, imported or sourced, approved into leads.
 * This file is its public face: nothing outside domain/prospects/ imports anything but this file.
 *
 * It offers its operations (import, start sourcing, list, get, approve, reject), its tables, its outbox
 * (runs not yet started, for the relay), and what the sourcing workflow's activities and infra need: a
 * batch's scoring and the run's type.
 */

import { approveProspect } from './operations/approve';
import { getProspect } from './operations/get';
import { listProspects } from './operations/list';
import { importProspects } from './operations/prospect-import';
import { rejectProspect } from './operations/reject';
import { startProspectSourcing } from './operations/start-sourcing';
import { ProspectEntity, ProspectListEntity, SourcingRunEntity } from './entities';

/** The operations this area registers. */
export const operations = {
  importProspects,
  startProspectSourcing,
  listProspects,
  getProspect,
  approveProspect,
  rejectProspect,
} as const;

/** Its tables. */
export const entities = [ProspectListEntity, SourcingRunEntity, ProspectEntity];

/** Its outbox: sourcing runs waiting for their workflows (the relay reads it). */
export { outboxes } from './outboxes';

// An operation the agents' runs still import by name; `operations.<name>` is the way in.

/** Scores the next batch of a sourcing run's list in one transaction (the run's workflow calls it). */
export { scoreBatch } from './sourcing';
/** A sourcing run, as its table holds it. */
export type { SourcingRun } from './entities';
