import type { DataSource } from 'typeorm';
import { Data } from '../kernel/data';
import { attemptsIn, type AttemptTarget } from './repository/attempts';
import { deliveriesIn } from './repository/deliveries';

/**
 * Where an attempt of a delivery goes, read in one round trip at its start (the hot path): the
 * delivery, its endpoint, whether the endpoint still wants it, its secrets and the event's bytes, and
 * whether this attempt was already made. The activity acts on a delivery by id, in any workspace.
 */
export const attemptTarget = (
  db: DataSource,
  deliveryId: string,
  attempt: number,
): Promise<AttemptTarget | undefined> =>
  attemptsIn(new Data(db.manager, undefined)).target(deliveryId, attempt);

/** A delivery its endpoint no longer wants ends CANCELLED (if it still waited). */
export const cancelDelivery = async (db: DataSource, deliveryId: string): Promise<void> => {
  await deliveriesIn(new Data(db.manager, undefined)).cancel(deliveryId);
};
