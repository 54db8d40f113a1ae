import type { Data } from '../kernel/data';
import { SAMPLE_SIZE, gateRefusal, memberSet, type Effect } from '../kernel/effect';
import { DomainError } from '../kernel/errors';
import { WRITE, type OperationContext } from '../kernel/operation';
import type { LeftOut } from './entities';
import { campaignOf, campaignsIn } from './repository/campaigns';
import { CAMPAIGNS_WRITE } from './requirements';
import { campaignIdInput } from './schemas';
import { people } from './summaries';
import { CAMPAIGN, campaignView } from './views';

/**
 * What a person approves when a campaign starts sending: its name, channel, every step's subject, body
 * and delay, its window and daily cap, and its audience definition (all bound: any edit refuses the
 * approved run). With `count`, whom it reaches: a draft's audience as it matches now
 * (`members.audience`, the leads' ids, shown as their number and the first few names and addresses),
 * or the recipients a launched campaign fixed (their number). Read under the campaign's lock when `lock`.
 */
async function campaignEffect(
  i: { campaignId: string },
  data: Data,
  opts: { lock: boolean; count: boolean },
): Promise<Effect> {
  const c = await campaignOf(campaignsIn(data), i.campaignId, opts);
  const bound = {
    name: c.name,
    channel: c.channel,
    steps: c.steps.map((s) => ({ subject: s.subject ?? null, body: s.body, delay_hours: s.delay_hours })),
    audience: c.audience,
    window: c.send_window,
    daily_cap: c.daily_cap,
  };
  // Reading a draft's audience scans its leads: only when the approver is to read it, never for the
  // approved run's check, which restricts the launch to the approved leads themselves.
  if (!opts.count) return { bound };
  if (c.status !== 'DRAFT') return { bound, counted: { audience: c.audience_size ?? 0 } };
  const { ids, sample } = await campaignsIn(data.in(c.workspace_id)).audienceMembers(c, SAMPLE_SIZE);
  return { bound, counted: { audience: ids.length }, members: { audience: memberSet(ids, sample) } };
}

/**
 * What launch, send and resume share: each starts messages leaving, so a key's call parks for a
 * person's approval with the campaign's effect, and the assistant is offered it to park.
 */
export const GATED_START = {
  requirement: CAMPAIGNS_WRITE,
  reach: 'record' as const,
  ...WRITE,
  gated: true,
  openWorld: true,
  input: campaignIdInput,
  output: CAMPAIGN,
  doors: { mcp: true as const },
  effect: campaignEffect,
};

/**
 * The leads a person approved the launch for, or undefined when no approval is running it. The set,
 * not its size, is what binds: the launch reaches only approved leads that still match, so it can
 * never reach more people than were approved, and a size margin (the 10% this replaced) has nothing
 * left to bound. A request parked before the set was kept names nobody, so it cannot run.
 */
function approvedAudience(ctx: OperationContext): string[] | undefined {
  if (!ctx.approved) return undefined;
  const set = ctx.approved.members?.audience;
  if (!set)
    throw gateRefusal(
      'approval predates its audience being kept: nobody can tell whom it approved, so nothing was sent; ask for approval again.',
    );
  return set.ids;
}

/** The refusal of an approved launch none of whose approved leads still match: nothing is sent. */
function nobodyApproved(leftOut: LeftOut) {
  const approved = leftOut.no_longer_qualify;
  const joined = leftOut.joined_since;
  return gateRefusal(
    `${approved === 0 ? 'nobody was approved' : `none of the ${people(approved)} approved still match the audience`}${joined > 0 ? `, and the ${people(joined)} who joined it since ${joined === 1 ? 'was' : 'were'} not approved` : ''}: nothing was sent; ask for approval again.`,
    { left_out: leftOut },
  );
}

/**
 * Starts a draft: its audience is fixed now (every matching lead with an address on the channel
 * becomes a recipient; for an approved launch, only the approved ones among them), and the campaign's
 * workflow, started by the relay once this commits, sends it. An audience that matches nobody is
 * refused with the reason, and nothing changes.
 */
export async function start(ctx: OperationContext, campaignId: string, broadcast: boolean) {
  const c = await campaignOf(campaignsIn(ctx.data), campaignId, { lock: true });
  const repo = campaignsIn(ctx.data.in(c.workspace_id));
  if (c.status !== 'DRAFT')
    throw new DomainError('conflict', `The campaign is ${c.status}: only a draft can be launched or sent.`);
  if (broadcast && c.steps.length !== 1)
    throw new DomainError(
      'conflict',
      `campaign.send sends a one-step broadcast; this campaign has ${c.steps.length} steps: launch it instead.`,
    );
  const approved = approvedAudience(ctx);
  const { fixed, joined } = await repo.fixAudience(c, approved);
  const leftOut: LeftOut | null = approved
    ? { joined_since: joined, no_longer_qualify: approved.length - fixed }
    : null;
  if (fixed === 0 && leftOut) throw nobodyApproved(leftOut);
  if (fixed === 0)
    throw new DomainError(
      'conflict',
      `The audience matches no live lead with ${c.channel === 'email' ? 'an email address' : 'a phone number'}: nothing would be sent. Widen the audience (statuses, sources, created_since).`,
      { field: 'audience' },
    );
  const launched = await repo.launch(c.id, fixed, leftOut);
  ctx.audit(c.workspace_id, {
    campaign_id: c.id,
    audience_size: fixed,
    broadcast,
    ...(leftOut && { left_out: leftOut }),
  });
  return campaignView(launched);
}
