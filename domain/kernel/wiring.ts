import type { EntityManager } from 'typeorm';
import type { EventFanOut } from './events';

/**
 * What the areas plug into the kernel, so that the kernel names none of them: what every event
 * statement adds (the webhooks area's deliveries, one for each endpoint subscribed), and whether a
 * workspace the operator names exists (the identity area's table). Plugged once, where the areas meet
 * (domain/registry.ts).
 */
export type AreaWiring = {
  fanOut: EventFanOut;
  workspaceExists: (m: EntityManager, workspaceId: string) => Promise<boolean>;
};

let plugged: AreaWiring | undefined;

/** Plugs the areas' parts into the kernel (the registry does, once). */
export function plugAreas(wiring: AreaWiring): void {
  plugged = wiring;
}

/** The areas' parts, as plugged; a process that never loaded the registry has none, and says so. */
export function areaWiring(): AreaWiring {
  if (!plugged)
    throw new Error(
      'the areas are not plugged into the kernel (services come from composeServices in domain/registry.ts)',
    );
  return plugged;
}
