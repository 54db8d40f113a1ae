/**
 * What the campaign's workflow (`workflows/campaign.ts`) and those who start it share. Types only,
 * safe inside the workflow sandbox; the workflow defines its messages beside itself.
 */
export type CampaignInput = {
  campaignId: string;
  /** Batches one run sends before it continues as new (keeping its history small). */
  batchesPerRun?: number;
};
