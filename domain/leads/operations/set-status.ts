import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { WRITE, defineOperation } from '../../kernel/operation';
import { LEADS_WRITE } from '../requirements';
import { STATUS_RESULT, leadView, type Warning } from '../views';
import { moveStatus } from '../move-status';
import { lockLead } from '../repository/leads';
import { leadIdField, statusField } from '../schemas';
import { canMove, CLOSED, type LeadStatus } from '../status-rules';

/**
 * Moves a lead along the status table. The same status changes nothing and warns; a move to WON or
 * LOST stops follow-up and says so.
 */
export const setLeadStatus = defineOperation({
  name: 'lead.set_status',
  title: "Set a lead's status",
  description:
    'Moves a lead to another status, following the status rules (a move the rules do not allow is refused and says why). Setting the status it already has changes nothing; WON or LOST stops follow-up. Show the returned warnings to the user.',
  returns: '{ lead, warnings: [{ code, message }] }.',
  requirement: LEADS_WRITE,
  reach: 'record',
  ...WRITE,
  idempotent: true,
  input: yup
    .object({ leadId: leadIdField, status: statusField.required('status is required') })
    .strict(true)
    .noUnknown(true, (p: { unknown: string }) => `${p.unknown} is not a parameter of this call`),
  output: STATUS_RESULT,
  doors: { mcp: true },
  summary: (i) => `Set lead ${i.leadId} to ${i.status}`,
  run: async (ctx, input) => {
    const status = input.status as LeadStatus;
    const { lead, data } = await lockLead(ctx.data, input.leadId);
    const warnings: Warning[] = [];
    ctx.audit(lead.workspace_id, { lead_id: lead.id, from: lead.status, to: status });
    if (lead.status === status) {
      warnings.push({ code: 'status_unchanged', message: `The lead is already ${status}; nothing changed.` });
      return { lead: leadView(lead), warnings };
    }
    if (!canMove(lead.status, status)) {
      throw new DomainError('conflict', `A lead cannot move from ${lead.status} to ${status}.`, {
        from: lead.status,
        to: status,
      });
    }
    const closing = CLOSED.includes(status);
    const updated = await moveStatus({ ...ctx, data }, lead, status, closing ? { follow_up: 'STOPPED' } : {});
    if (closing) {
      warnings.push({
        code: 'follow_up_stopped',
        message: `Follow-up has stopped because the lead is now ${status}.`,
      });
    }
    return { lead: leadView(updated), warnings };
  },
});
