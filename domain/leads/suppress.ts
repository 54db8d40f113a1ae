import type { OperationContext } from '../kernel/operation';
import type { Suppression } from './entities';
import { normaliseContact, workspaceTimezone } from './contact-input';
import { leadsIn } from './repository/leads';
import { suppressionsIn } from './repository/suppressions';

export const SUPPRESSION_REASONS = [
  'unsubscribed',
  'bounce',
  'complaint',
  'invalid_number',
  'manual',
] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

export type SuppressionView = Omit<Suppression, 'created_at'>;

/**
 * Blocks an address in a workspace, however it was asked (the admin CLI, an unsubscribe link, an SMS
 * STOP, a bounce): intake and sending refuse it from then on. An opt-out emits contact.unsubscribed,
 * any other reason contact.suppressed, naming the lead when the address belongs to one.
 */
export async function suppressAddress(
  ctx: Pick<OperationContext, 'data' | 'emit'>,
  workspaceId: string,
  s: { address: string; channel: string; reason: SuppressionReason; source: string },
): Promise<SuppressionView> {
  const data = ctx.data.in(workspaceId);
  const tz = await workspaceTimezone(data, workspaceId);
  const address = s.address.includes('@')
    ? normaliseContact({ email: s.address }, tz).email!
    : normaliseContact({ phone: s.address }, tz).phone!;
  const suppressionId = await suppressionsIn(data).suppress({ ...s, address });
  const leadId = await leadsIn(data).liveWithAddress(address);
  await ctx.emit(
    workspaceId,
    s.reason === 'unsubscribed' ? 'contact.unsubscribed' : 'contact.suppressed',
    { type: 'lead', id: leadId ?? suppressionId },
    {
      lead_id: leadId ?? null,
      suppression_id: suppressionId,
      channel: s.channel,
      reason: s.reason,
      source: s.source,
    },
  );
  return { id: suppressionId, workspace_id: workspaceId, ...s, address };
}
