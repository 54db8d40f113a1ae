import type { DataSource } from 'typeorm';
import { Data } from '../kernel/data';
import { attemptsIn, type AttemptClaim, type Claimed } from './repository/attempts';

export type { AttemptClaim, Claimed };

/**
 * Claims an attempt for one run before its request leaves, committed before it is sent: a re-run of the
 * same attempt (its workflow task was lost while this one ran) finds the claim and sends nothing until
 * this run has recorded, or its time is up (its worker died). Answers nothing when another run holds
 * the delivery, the attempt is already recorded, or the delivery no longer waits.
 */
export const claimAttempt = (db: DataSource, c: AttemptClaim): Promise<Claimed | undefined> =>
  attemptsIn(new Data(db.manager, undefined)).claim(c);

/** Lets a claim go when nothing was sent under it, so a re-run need not wait for its time to pass. */
export const releaseAttempt = (db: DataSource, deliveryId: string, token: string): Promise<void> =>
  attemptsIn(new Data(db.manager, undefined)).release(deliveryId, token);
