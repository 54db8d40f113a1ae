import type { OperationContext } from '../kernel/operation';
import type { OpportunityStage } from '../kernel/event-catalogue';
import type { Lead } from '../leads';
import type { Opportunity, Payment } from './entities';
import { opportunitiesIn } from './repository/opportunities';

type Ctx = Pick<OperationContext, 'data' | 'emit'>;

const subjectOf = (o: Opportunity) => ({ type: 'opportunity' as const, id: o.id });

/**
 * Opens an opportunity for the lead (opportunity.created) unless it has one open; a booking moves an
 * open one from QUALIFIED to BOOKED. Answers the lead's open opportunity either way.
 */
export async function openOpportunity(
  ctx: Ctx,
  lead: Pick<Lead, 'id' | 'workspace_id'>,
  origin: Opportunity['origin'],
  stage: OpportunityStage,
): Promise<Opportunity> {
  const repo = opportunitiesIn(ctx.data.in(lead.workspace_id));
  const existing = await repo.openFor(lead.id);
  if (existing) {
    if (stage === 'BOOKED' && existing.stage === 'QUALIFIED') return repo.change(existing.id, { stage });
    return existing;
  }
  const row = await repo.open({ lead_id: lead.id, stage, motion: await repo.motionOf(lead.id), origin });
  // Another path opened one in the meantime (the partial unique index refused ours): that one stands.
  if (!row) return (await repo.openFor(lead.id))!;
  await ctx.emit(lead.workspace_id, 'opportunity.created', subjectOf(row), {
    opportunity_id: row.id,
    lead_id: lead.id,
    stage: row.stage,
    motion: row.motion,
    origin: row.origin,
  });
  return row;
}

/**
 * Closes the lead's open opportunity as won or lost (opportunity.won / opportunity.lost), with the
 * payment that closed it when one did. A lead with none open has nothing to close: undefined.
 */
export async function closeOpportunity(
  ctx: Ctx,
  lead: Pick<Lead, 'id' | 'workspace_id'>,
  outcome: 'WON' | 'LOST',
  reason: string,
  payment: Payment | null = null,
): Promise<Opportunity | undefined> {
  const repo = opportunitiesIn(ctx.data.in(lead.workspace_id));
  const open = await repo.openFor(lead.id);
  if (!open) return undefined;
  const closed = await repo.change(open.id, {
    stage: outcome,
    close_reason: reason,
    payment,
    closed_at: new Date(),
  });
  const base = { opportunity_id: open.id, lead_id: lead.id, reason };
  if (outcome === 'WON')
    await ctx.emit(lead.workspace_id, 'opportunity.won', subjectOf(open), { ...base, payment });
  else await ctx.emit(lead.workspace_id, 'opportunity.lost', subjectOf(open), base);
  return closed;
}
