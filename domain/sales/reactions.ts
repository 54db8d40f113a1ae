import { leadClosed, opportunityWanted } from '../leads';
import { closeOpportunity, openOpportunity } from './opportunity-lifecycle';

/**
 * An opportunity follows its lead: opened when the lead is booked (stage BOOKED) or shows buying intent
 * while qualified (QUALIFIED), closed when the lead is won or lost.
 */
export function listen(): void {
  opportunityWanted.on(async (ctx, lead, origin) => {
    await openOpportunity(ctx, lead, origin, origin === 'BOOKING' ? 'BOOKED' : 'QUALIFIED');
  });
  leadClosed.on(async (ctx, lead, outcome, reason) => {
    await closeOpportunity(ctx, lead, outcome, reason);
  });
}
