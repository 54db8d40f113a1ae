/**
 * The prospects area: prospect lists, imported or sourced, approved into leads.
 * This file is its public face: nothing outside domain/prospects/ imports anything but this file.
 *
 * It offers its operations (import, start sourcing, list, get, approve, reject), its tables, and what
 * the sourcing workflow's activities, infra and the relay need: a batch's scoring and the runs not yet
 * started.
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

// An operation the agents' runs still import by name; `operations.<name>` is the way in.

/** Scores the next batch of a sourcing run's list in one transaction (the run's workflow calls it). */
export { scoreBatch } from './sourcing';
/** A sourcing run, as its table holds it. */
export type { SourcingRun } from './entities';
/** The relay's work on sourcing: runs whose workflow has not started. */
export { sourcingUpkeep } from './repository/upkeep';
