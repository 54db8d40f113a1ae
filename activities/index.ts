import type { DataSource } from 'typeorm';
import { createPingActivities } from './ping';

export type ActivityDeps = { db?: DataSource; clock: () => Date };

/** All activities, built from their dependencies so tests can pass fakes. */
export const createActivities = (deps: ActivityDeps) => ({
  ...createPingActivities(deps),
});

export type Activities = ReturnType<typeof createActivities>;
