import { notFound } from '../../kernel/errors';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { LEADS_READ } from '../requirements';
import { LEAD_WITH_ACTIVITY, leadView } from '../views';
import { leadReadsIn } from '../repository/reads';
import { byLeadId } from '../schemas';
import { AREA } from '../area';

const RECENT_ACTIVITY_LIMIT = 20;
const ACTIVITY_BODY_LIMIT = 500;

/** A lead (archived ones too) with its last 20 messages on any channel, newest first, bodies cut to 500. */
export const getLead = defineOperation({
  name: 'lead.get',
  title: 'Read a lead',
  description:
    'One lead (archived ones too) with its last 20 messages on any channel, newest first, bodies cut to 500 characters.',
  returns: '{ data: lead, recent_activity: [message] }.',
  requirement: LEADS_READ,
  reach: 'record',
  ...READ_ONLY,
  input: byLeadId,
  output: LEAD_WITH_ACTIVITY,
  doors: {
    rest: {
      method: 'get',
      path: '/leads/:id',
      operationId: 'getLead',
      area: AREA,
      params: { id: 'leadId' },
      answers: { 404: 'No such lead in this workspace.' },
    },
    mcp: true,
  },
  summary: (i) => `Read lead ${i.leadId}`,
  run: async (ctx, { leadId }) => {
    const found = await leadReadsIn(ctx.data).withRecentMessages(
      leadId,
      RECENT_ACTIVITY_LIMIT,
      ACTIVITY_BODY_LIMIT,
    );
    if (!found) throw notFound('lead');
    return {
      data: leadView(found.lead),
      recent_activity: found.messages.map((msg) => ({
        type: 'message' as const,
        id: msg.id,
        direction: msg.direction,
        channel: msg.channel,
        status: msg.status,
        body: msg.body,
        at: msg.at.toISOString(),
        authenticity: msg.authenticity,
      })),
    };
  },
});
