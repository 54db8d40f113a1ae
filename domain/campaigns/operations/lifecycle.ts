import * as yup from 'yup';
import type { Data } from '../../kernel/data';
import { SAMPLE_SIZE, gateRefusal, memberSet, type Effect } from '../../kernel/effect';
import { DomainError } from '../../kernel/errors';
import { WRITE, defineOperation, type OperationContext } from '../../kernel/operation';
import { boolean, object } from '../../kernel/shapes';
import type { LeftOut } from '../entities';
import { brakeOnFeedback, pauseRunning } from '../pausing';
import { campaignsIn } from '../repository';
import { CAMPAIGNS_WRITE } from '../requirements';
import { campaignIdField } from '../schemas';
import { CAMPAIGN, campaignView } from '../views';
import { campaignOf } from './drafts';

const input = yup.object({ campaignId: campaignIdField });

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
const GATED_START = {
  requirement: CAMPAIGNS_WRITE,
  reach: 'record' as const,
  ...WRITE,
  gated: true,
  openWorld: true,
  input,
  output: CAMPAIGN,
  doors: { mcp: true as const },
  effect: campaignEffect,
};

const people = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'person' : 'people'}`;

/**
 * "the email campaign "Spring offer" (3 steps)", for a person reading what they approve: from the
 * call's effect when it has one, else from the record (or its id).
 */
async function described(i: { campaignId: string }, look?: Data, effect?: Effect): Promise<string> {
  const c = effect
    ? (effect.bound as { name: string; channel: string; steps: unknown[] })
    : look && (await campaignsIn(look).find(i.campaignId));
  return c
    ? `the ${c.channel} campaign "${c.name}" (${c.steps.length} step${c.steps.length === 1 ? '' : 's'})`
    : `campaign ${i.campaignId}`;
}

/** Who it reaches, as counted when the request parked: "1,240 people" (or "its audience" without a count). */
const reach = (effect?: Effect) =>
  effect?.counted?.audience !== undefined ? people(effect.counted.audience) : 'its audience';

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
async function start(ctx: OperationContext, campaignId: string, broadcast: boolean) {
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

export const launchCampaign = defineOperation({
  name: 'campaign.launch',
  title: 'Launch a campaign sequence',
  description:
    'Starts a draft campaign: fixes its audience now and sends its steps, each after its delay, inside the sending window and under the daily cap. Once approved, it reaches only the leads counted when it was asked that still match the audience; leads that joined the audience since are left out (left_out says how many, and why). A lead who replies, books or opts out leaves the sequence.',
  returns: 'The campaign, now RUNNING (once approved).',
  ...GATED_START,
  summary: async (i, look, effect) => `Launch ${await described(i, look, effect)} to ${reach(effect)}`,
  run: (ctx, { campaignId }) => start(ctx, campaignId, false),
});

export const sendCampaign = defineOperation({
  name: 'campaign.send',
  title: 'Send a one-step broadcast now',
  description:
    'Sends a draft one-step campaign to its audience now (inside the sending window, under the daily cap). Once approved, it reaches only the leads counted when it was asked that still match the audience; leads that joined the audience since are left out (left_out says how many, and why).',
  returns: 'The campaign, now RUNNING (once approved).',
  ...GATED_START,
  summary: async (i, look, effect) => `Send ${await described(i, look, effect)} to ${reach(effect)} now`,
  run: (ctx, { campaignId }) => start(ctx, campaignId, true),
});

export const pauseCampaign = defineOperation({
  name: 'campaign.pause',
  title: 'Pause a campaign',
  description:
    'Pauses a running campaign before its next message; nothing more is sent until it is resumed (campaign.paused). Pausing one already paused changes nothing.',
  returns: 'The campaign, now PAUSED.',
  requirement: CAMPAIGNS_WRITE,
  reach: 'record',
  ...WRITE,
  idempotent: true,
  input,
  output: CAMPAIGN,
  doors: { mcp: true, admin: { command: 'campaign pause', flags: (f) => ({ campaignId: f.id }) } },
  summary: async (i, look) => `Pause ${await described(i, look)}`,
  run: async (ctx, { campaignId }) => {
    const c = await campaignOf(campaignsIn(ctx.data), campaignId, { lock: true });
    if (c.status === 'PAUSED') return campaignView(c);
    if (c.status !== 'RUNNING')
      throw new DomainError(
        'conflict',
        `The campaign is ${c.status}: only a running campaign can be paused.`,
      );
    const paused = await pauseRunning(ctx, c, { reason: 'person', detail: null });
    ctx.audit(c.workspace_id, { campaign_id: c.id });
    return campaignView(paused);
  },
});

export const resumeCampaign = defineOperation({
  name: 'campaign.resume',
  title: 'Resume a paused campaign',
  description:
    'Resumes a paused campaign where it stopped, whoever paused it (a person, or the deliverability brake).',
  returns: 'The campaign, RUNNING again (once approved).',
  ...GATED_START,
  summary: async (i, look, effect) =>
    `Resume ${await described(i, look, effect)}${effect ? ` for the ${reach(effect)} it was launched to` : ''}`,
  run: async (ctx, { campaignId }) => {
    const c = await campaignOf(campaignsIn(ctx.data), campaignId, { lock: true });
    if (c.status !== 'PAUSED')
      throw new DomainError(
        'conflict',
        `The campaign is ${c.status}: only a paused campaign can be resumed.`,
      );
    const resumed = await campaignsIn(ctx.data.in(c.workspace_id)).resume(c.id);
    ctx.afterCommit(async () => ctx.services.campaigns?.wake(c.id, 'resume'));
    ctx.audit(c.workspace_id, { campaign_id: c.id, was_paused_by: c.paused_reason });
    return campaignView(resumed);
  },
});

/**
 * The deliverability brake, run by a campaign's batch after the provider refused addresses as dead at
 * once (hard bounces): a running campaign over its workspace's limits pauses (reason deliverability).
 * Bounce and complaint reports run the same brake in their own transaction.
 */
export const checkDeliverability = defineOperation({
  name: 'campaign.check_deliverability',
  title: "Check a campaign's deliverability",
  description:
    'Pauses a running campaign whose proven hard bounces or spam complaints are over the workspace limits (campaign.paused, reason deliverability); otherwise changes nothing.',
  returns: '{ paused }.',
  requirement: CAMPAIGNS_WRITE,
  reach: 'record',
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
  input,
  output: object({ paused: boolean }),
  doors: {},
  summary: async (i, look) => `Check the deliverability of ${await described(i, look)}`,
  run: async (ctx, { campaignId }) => {
    const paused = await brakeOnFeedback(ctx, campaignId);
    if (paused) ctx.audit(paused.workspace_id, { campaign_id: paused.id, detail: paused.pause_detail });
    return { paused: !!paused };
  },
});
