import { campaignFeedback } from '../conversations';
import { brakeOnFeedback } from './pausing';

/** A bounce or complaint for a campaign's message feeds the campaign's deliverability brake. */
export function listen(): void {
  campaignFeedback.on(async (ctx, campaignId) => !!(await brakeOnFeedback(ctx, campaignId)));
}
