import { createDeliveryActivities, type DeliveryDeps } from './deliver';
import { createPingActivities } from './ping';

export type ActivityDeps = DeliveryDeps;

/** All activities, built from their dependencies so tests can pass fakes. */
export const createActivities = (deps: ActivityDeps) => ({
  ...createPingActivities(deps),
  ...createDeliveryActivities(deps),
});

export type Activities = ReturnType<typeof createActivities>;
