import { createAppointmentActivities } from './appointment';
import { createApprovalActivities } from './approval';
import { createDeliveryActivities, type DeliveryDeps } from './deliver';
import { createMaintenanceActivities, type MaintenanceDeps } from './maintenance';
import { createPingActivities } from './ping';

export type ActivityDeps = DeliveryDeps & { maintenance: Omit<MaintenanceDeps, 'db'> };

/** All activities, built from their dependencies so tests can pass fakes. */
export const createActivities = (deps: ActivityDeps) => ({
  ...createPingActivities(deps),
  ...createDeliveryActivities(deps),
  ...createMaintenanceActivities({ db: deps.db, ...deps.maintenance }),
  ...createApprovalActivities({
    db: deps.db,
    clock: deps.clock,
    webhooks: {
      secretsKey: deps.secretsKey,
      allowPrivateTargets: deps.allowPrivateTargets,
      cancelWorkflows: deps.cancelWorkflows,
    },
  }),
  ...createAppointmentActivities({ db: deps.db, clock: deps.clock, secretsKey: deps.secretsKey }),
});

export type Activities = ReturnType<typeof createActivities>;
