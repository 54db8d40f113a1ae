import { Data } from '../kernel/data';
import type { Services } from '../kernel/operation';
import { operatorActor } from '../kernel/actor';
import { runOperation } from '../kernel/runner';
import { workspaceNamed } from '../identity';
import { operations as leadsOperations } from '../leads';
import { campaignMail, type CampaignSend, type ProviderResult } from '../conversations';
import { checkDeliverability } from './operations/check-deliverability';
import { campaignsIn } from './repository/campaigns';
import type { Campaign, CampaignStatus } from './entities';
import { campaignSendsIn } from './repository/recipients';
import { render, valuesFor } from './templates';
import { startOfLocalDay, untilWindowOpens } from './window';

/** What one batch did, for the campaign's workflow. */
export type BatchOutcome =
  | { state: 'sent'; sent: number; failed: number; skipped: number }
  /** Nothing is due yet, or the window is closed, or today's cap is spent: wait this long. */
  | { state: 'wait'; ms: number }
  /** The campaign is not RUNNING (paused, completed): the workflow stops sending. */
  | { state: 'stopped'; status: CampaignStatus };

export type EngineDeps = {
  services: Services;
  /** Says the batch is alive (a Temporal heartbeat), so a batch whose worker died is retried soon. */
  alive?: () => void;
  /** Hands one message to the campaign channel's provider. */
  send: (
    channel: Campaign['channel'],
    msg: CampaignSend & { id: string; mail_id: string; leadId: string; fromName: string },
  ) => Promise<ProviderResult>;
};

export type BatchOptions = { batchSize: number; concurrency: number };

const RETRY_TRANSIENT_MS = 5 * 60_000;
const DAY_MS = 24 * 3_600_000;

/**
 * Sends the next batch of a running campaign. Phase one (a transaction): check the campaign still
 * runs, the window is open and today's cap has room; take the due recipients; let those who replied,
 * booked or closed leave; write a send row per recipient (`queued`, or `suppressed` for a blocked
 * address) and move each recipient on; commit. Phase two: hand the rows to the provider, a few at a
 * time, checking before each group that the campaign was not paused (a pause puts the rest back).
 * Each group is marked `sending` (committed) just before it is handed over. Phase three: record what
 * the provider said. A crash leaves the group in hand `sending`, which the next
 * batch fails visibly: a message is never sent twice.
 */
export async function sendBatch(
  deps: EngineDeps,
  campaignId: string,
  opts: BatchOptions,
  now: Date,
): Promise<BatchOutcome> {
  const { db } = deps.services;
  const phaseOne = await db.transaction(async (m) => {
    const all = new Data(m, undefined);
    const c = await campaignsIn(all).lock(campaignId);
    if (!c) return { kind: 'stop' as const, status: 'COMPLETED' as CampaignStatus };
    const data = all.in(c.workspace_id);
    const repo = campaignsIn(data);
    const sends = campaignSendsIn(data);
    const messages = campaignMail(data);
    if (c.workflow_started_at === null) await repo.change(c.id, { workflow_started_at: now });
    await messages.failInterrupted(c.id);
    if (c.status !== 'RUNNING') return { kind: 'stop' as const, status: c.status };
    const workspace = await workspaceNamed(data, c.workspace_id);
    const tz = workspace?.timezone ?? 'UTC';
    const closedFor = untilWindowOpens(c.send_window, now, tz);
    if (closedFor > 0) return { kind: 'wait' as const, ms: closedFor };
    const room = c.daily_cap - (await messages.sentSince(c.id, startOfLocalDay(now, tz)));
    if (room <= 0) {
      const tomorrow = new Date(startOfLocalDay(now, tz).getTime() + DAY_MS + 3_600_000);
      const ms = tomorrow.getTime() - now.getTime() + untilWindowOpens(c.send_window, tomorrow, tz);
      return { kind: 'wait' as const, ms };
    }
    const name = workspace?.name ?? '';
    // What a crashed batch wrote but never handed over goes first (those recipients moved on already).
    const leftovers = await messages.leftovers(c.id);
    if (leftovers.length > 0)
      return { kind: 'go' as const, campaign: c, toSend: leftovers, skipped: 0, fromName: name };
    const due = await sends.due(c, Math.min(opts.batchSize, room), now);
    if (due.length === 0) {
      const next = await sends.nextDue(c.id);
      if (next === null) {
        await repo.change(c.id, { status: 'COMPLETED', completed_at: now });
        return { kind: 'stop' as const, status: 'COMPLETED' as CampaignStatus };
      }
      return { kind: 'wait' as const, ms: Math.max(1_000, next.getTime() - now.getTime()) };
    }
    const leavers = due.filter((r) => r.leaves).map((r) => ({ lead_id: r.lead_id, reason: r.leaves! }));
    const staying = due.filter((r) => !r.leaves);
    const rows = staying.map((r) => {
      const step = c.steps[r.next_step]!;
      const values = valuesFor(r, name);
      return {
        lead_id: r.lead_id,
        step: r.next_step,
        to: (c.channel === 'email' ? r.email : r.phone) ?? '',
        subject: c.channel === 'email' && step.subject ? render(step.subject, values) : null,
        body: render(step.body, values),
        status: r.blocked ? ('suppressed' as const) : ('queued' as const),
        error: r.blocked ? `The contact ${r.blocked}; it was not sent.` : null,
      };
    });
    const written = await messages.write(c, rows, now);
    await sends.leave(c.id, [
      ...leavers,
      ...staying.filter((r) => r.blocked).map((r) => ({ lead_id: r.lead_id, reason: r.blocked! })),
    ]);
    await sends.advance(
      c,
      staying.filter((r) => !r.blocked).map((r) => r.lead_id),
      now,
    );
    const toSend = rows
      .filter((r) => r.status === 'queued' && written.has(r.lead_id))
      .map((r) => ({ ...r, ...written.get(r.lead_id)! }));
    return { kind: 'go' as const, campaign: c, toSend, skipped: rows.length - toSend.length, fromName: name };
  });
  if (phaseOne.kind === 'stop') return { state: 'stopped', status: phaseOne.status };
  if (phaseOne.kind === 'wait') return { state: 'wait', ms: phaseOne.ms };

  const { campaign: c, toSend, fromName } = phaseOne;
  const data = new Data(db.manager, c.workspace_id);
  const messages = campaignMail(data);
  const outcomes: { id: string; status: string; error: string | null; provider_id: string | null }[] = [];
  const putBack: string[] = [];
  const bounced: { id: string; to: string; block: 'bounce' | 'invalid_number'; error: string }[] = [];
  for (let i = 0; i < toSend.length; i += opts.concurrency) {
    deps.alive?.();
    const group = toSend.slice(i, i + opts.concurrency);
    if ((await campaignsIn(data).find(c.id))?.status !== 'RUNNING') {
      putBack.push(...toSend.slice(i).map((s) => s.id));
      break;
    }
    await messages.markSending(group.map((s) => s.id));
    const results = await Promise.all(
      group.map((s) => deps.send(c.channel, { ...s, leadId: s.lead_id, fromName })),
    );
    const settled: typeof outcomes = [];
    group.forEach((s, k) => {
      const r = results[k]!;
      if (r.kind === 'sent')
        settled.push({ id: s.id, status: 'sent', error: null, provider_id: r.providerMessageId });
      else if (r.kind === 'transient' && !r.maybeSent) putBack.push(s.id);
      else if (r.kind === 'permanent' && r.block)
        bounced.push({ id: s.id, to: s.to, block: r.block, error: r.error });
      else
        settled.push({
          id: s.id,
          status: 'failed',
          error: r.kind === 'transient' ? `interrupted: ${r.error}; it is not sent again` : r.error,
          provider_id: null,
        });
    });
    // Recorded group by group: a crash later leaves only the group in hand to fail visibly.
    await messages.settle(settled);
    outcomes.push(...settled);
    await blockDead(deps.services, c, bounced.splice(0));
  }
  // The unsent rows go and their recipients are due again, together: a crash between would lose them.
  await db.transaction(async (m) => {
    const inTx = new Data(m, c.workspace_id);
    const withdrawn = await campaignMail(inTx).withdrawUnsent(putBack);
    await campaignSendsIn(inTx).dueAgain(c.id, withdrawn, new Date(now.getTime() + RETRY_TRANSIENT_MS));
  });
  const sent = outcomes.filter((o) => o.status === 'sent').length;
  return { state: 'sent', sent, failed: toSend.length - sent - putBack.length, skipped: phaseOne.skipped };
}

/**
 * Addresses the provider refused as dead: each is blocked the way every door blocks one (event and
 * audit), with its send failed, and a hard bounce feeds the campaign's deliverability brake (which
 * the next group's check sees).
 */
async function blockDead(
  services: Services,
  c: Campaign,
  dead: { id: string; to: string; block: 'bounce' | 'invalid_number'; error: string }[],
) {
  if (dead.length === 0) return;
  const actor = operatorActor({ door: 'activity', requestId: services.jobNames.campaign(c.id) });
  for (const b of dead)
    await runOperation(
      services,
      leadsOperations.suppressContact,
      actor,
      { address: b.to, channel: c.channel, reason: b.block, source: `${c.channel} provider` },
      {
        workspaceId: c.workspace_id,
        auditDetails: { campaign_id: c.id, message_id: b.id },
        alsoInTransaction: async (m) => {
          await campaignMail(new Data(m, c.workspace_id)).settle([
            {
              id: b.id,
              status: 'failed',
              error: b.error,
              provider_id: null,
              ...(b.block === 'bounce' && { feedback: 'hard_bounce' as const }),
            },
          ]);
        },
      },
    );
  if (dead.some((b) => b.block === 'bounce'))
    await runOperation(
      services,
      checkDeliverability,
      actor,
      { campaignId: c.id },
      { workspaceId: c.workspace_id },
    );
}
