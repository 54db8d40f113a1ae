/**
 * The campaigns area: multi-step outreach to an audience, paced, windowed and braked.
 * This file is its public face: nothing outside domain/campaigns/ imports anything but this file. It
 * offers the campaign operations and tables, its reaction to mail feedback (the deliverability brake),
 * what the campaign workflow's activity and the relay run, and the sending window and template rules
 * the agents area writes by.
 */

import { CampaignEntity, RecipientEntity } from './entities';
import { createCampaign } from './operations/create';
import { getCampaign } from './operations/get';
import { launchCampaign } from './operations/launch';
import { listCampaigns } from './operations/list';
import { pauseCampaign } from './operations/pause';
import { previewCampaign } from './operations/preview';
import { resumeCampaign } from './operations/resume';
import { sendCampaign } from './operations/send';
import { updateCampaign } from './operations/update';

/** The operations this area registers. */
export const operations = {
  createCampaign,
  updateCampaign,
  previewCampaign,
  listCampaigns,
  getCampaign,
  sendCampaign,
  launchCampaign,
  pauseCampaign,
  resumeCampaign,
} as const;

/** Its tables. */
export const entities = [CampaignEntity, RecipientEntity];

/** Its outbox: launched campaigns waiting for their workflows (the relay reads it). */
export { outboxes } from './outboxes';

/** How it reacts to the areas below it: a bounce or complaint feeds the campaign's deliverability brake. */
export { listen } from './reactions';

/** A campaign as stored (the Temporal side names its workflow by it). */
export type { Campaign } from './entities';
/** Sends the next batch of a running campaign (the campaign workflow's activity), and what it did. */
export { sendBatch } from './engine';
export type { BatchOutcome, EngineDeps } from './engine';
/** A sending window (weekdays and hours in a time zone), whether a moment is inside it, and the local day's start. */
export type { SendWindow } from './entities';
export { insideWindow, startOfLocalDay } from './window';
/** Fills a message template's placeholders, and the values a lead and workspace give them. */
export { render, valuesFor } from './templates';
