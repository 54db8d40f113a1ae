import { type DeliverabilityLimits, deliverabilityOf, workspaceNamed } from '../identity';
import type { OperationContext } from '../kernel/operation';
import type { Campaign, PauseReason } from './entities';
import { campaignsIn, type FeedbackFigures } from './repository/campaigns';

type PauseContext = Pick<OperationContext, 'data' | 'emit' | 'afterCommit' | 'services'>;

/**
 * Pauses a RUNNING campaign (held under its lock by the caller): nothing more leaves until it is
 * resumed, which is the gated resume whoever paused it. Its workflow is woken at commit, and
 * campaign.paused says who paused it and the sending figures so far.
 */
export async function pauseRunning(
  ctx: PauseContext,
  c: Campaign,
  pause: { reason: PauseReason; detail: string | null; figures?: FeedbackFigures },
): Promise<Campaign> {
  const repo = campaignsIn(ctx.data.in(c.workspace_id));
  const figures = pause.figures ?? (await repo.feedbackFigures(c.id));
  const paused = await repo.pause(c.id, pause.reason, pause.detail);
  ctx.afterCommit(async () => ctx.services.campaigns.wake(c.id, 'pause'));
  await ctx.emit(
    c.workspace_id,
    'campaign.paused',
    { type: 'campaign', id: c.id },
    {
      campaign_id: c.id,
      name: c.name,
      reason: pause.reason,
      detail: pause.detail ?? '',
      sends: figures.sends,
      hard_bounces: figures.hard_bounces,
      complaints: figures.complaints,
    },
  );
  return paused;
}

const percent = (n: number, of: number) => `${((n * 100) / of).toFixed(1).replace(/\.0$/, '')}%`;

/**
 * What the brake finds in a campaign's figures: why it must pause, in words, or undefined. Judged
 * only over at least `min_sends` sends; a rate must be above its limit, not at it.
 */
export function brakeReason(f: FeedbackFigures, limits: DeliverabilityLimits): string | undefined {
  if (f.sends < limits.min_sends) return undefined;
  const over: string[] = [];
  if (f.hard_bounces * 100 > limits.max_bounce_percent * f.sends)
    over.push(
      `hard bounces ${f.hard_bounces} of ${f.sends} sends (${percent(f.hard_bounces, f.sends)}), above the ${limits.max_bounce_percent}% limit`,
    );
  if (f.complaints * 100 > limits.max_complaint_percent * f.sends)
    over.push(
      `spam complaints ${f.complaints} of ${f.sends} sends (${percent(f.complaints, f.sends)}), above the ${limits.max_complaint_percent}% limit`,
    );
  return over.length > 0 ? over.join('; ') : undefined;
}

/**
 * The deliverability brake, after a proven hard bounce or complaint about one of a campaign's
 * messages (in the same transaction): a running campaign whose rates are over its workspace's limits
 * pauses, with reason `deliverability` and the figures that tripped it. Answers the campaign when it
 * paused it.
 */
export async function brakeOnFeedback(ctx: PauseContext, campaignId: string): Promise<Campaign | undefined> {
  const repo = campaignsIn(ctx.data);
  const c = await repo.lock(campaignId);
  if (!c || c.status !== 'RUNNING') return undefined;
  const data = ctx.data.in(c.workspace_id);
  const figures = await campaignsIn(data).feedbackFigures(c.id);
  const reason = brakeReason(figures, deliverabilityOf(await workspaceNamed(data, c.workspace_id)));
  if (!reason) return undefined;
  return pauseRunning(ctx, c, { reason: 'deliverability', detail: reason, figures });
}
