/**
 * The analytics area: the workspace's figures for a period.
 * This file is its public face: nothing outside domain/analytics/ imports anything but this file.
 *
 * It offers its one operation, the period summary (`analytics.summary`); it has no tables of its own.
 */

import { analyticsSummary } from './operations/summary';

/** The operations this area registers. */
export const operations = { analyticsSummary } as const;
