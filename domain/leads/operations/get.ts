import * as yup from 'yup';
import { notFound } from '../../kernel/errors';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { LEADS_READ } from '../requirements';
import { LEAD_COLUMNS, leadView, type LeadRow } from '../rows';
import { LEAD_WITH_ACTIVITY } from '../outputs';
import { leadIdField } from '../schemas';

const RECENT_ACTIVITY_LIMIT = 20;
const ACTIVITY_BODY_LIMIT = 500;

type MessageRow = { id: string; direction: string; channel: string; status: string; body: string; at: Date };

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
  input: yup.object({ leadId: leadIdField }).noUnknown('${unknown} is not a parameter of this call'),
  output: LEAD_WITH_ACTIVITY,
  doors: {
    rest: {
      method: 'get',
      path: '/leads/:id',
      operationId: 'getLead',
      params: { id: 'leadId' },
      answers: { 404: 'No such lead in this workspace.' },
    },
    mcp: true,
  },
  summary: (i) => `Read lead ${i.leadId}`,
  run: async (ctx, { leadId }) => {
    // One round trip: the lead and its last messages together.
    const [row] = await ctx.m.query<(LeadRow & { activity: (Omit<MessageRow, 'at'> & { at: string })[] })[]>(
      `SELECT ${LEAD_COLUMNS.split(',')
        .map((c) => `l.${c.trim()}`)
        .join(', ')},
            coalesce((SELECT json_agg(m ORDER BY m.at DESC, m.id DESC) FROM (
              SELECT id, direction, channel, status, left(body, $3) AS body, at FROM messages
               WHERE lead_id = l.id ORDER BY at DESC, id DESC LIMIT $4) m), '[]') AS activity
       FROM leads l WHERE l.id = $1 AND ($2::uuid IS NULL OR l.workspace_id = $2)`,
      [leadId, ctx.workspaceId ?? null, ACTIVITY_BODY_LIMIT, RECENT_ACTIVITY_LIMIT],
    );
    if (!row) throw notFound('lead');
    const { activity, ...lead } = row;
    const messages = activity.map((msg) => ({ ...msg, at: new Date(msg.at) }));
    return {
      data: leadView(lead),
      recent_activity: messages.map((msg) => ({
        type: 'message' as const,
        id: msg.id,
        direction: msg.direction,
        channel: msg.channel,
        status: msg.status,
        body: msg.body,
        at: msg.at.toISOString(),
      })),
    };
  },
});
