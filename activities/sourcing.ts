import type { Services } from '../domain/kernel/operation';
import { scoreBatch } from '../domain/prospects';

/** Candidates one batch scores (one transaction). */
const BATCH_SIZE = 500;

/** A sourcing run's I/O: its batches. */
export const createSourcingActivities = (services: Services) => ({
  scoreSourcingBatch: (runId: string) => scoreBatch(services, runId, BATCH_SIZE),
});
