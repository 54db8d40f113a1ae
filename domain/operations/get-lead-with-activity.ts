import type { DataSource } from 'typeorm';
import { authorize, type Actor } from '../actor';
import { notFound } from '../errors';
import { LEAD_COLUMNS, leadView, type LeadRow } from '../leads/lead-row';
import { LEADS_READ } from '../leads/requirements';

export const RECENT_ACTIVITY_LIMIT = 20;
export const ACTIVITY_BODY_LIMIT = 500;

type MessageRow = { id: string; direction: string; channel: string; status: string; body: string; at: Date };

/** A lead (archived ones too) with its last 20 messages on any channel, newest first, bodies cut to 500. */
export async function getLeadWithActivity(db: DataSource, actor: Actor, workspaceId: string, leadId: string) {
  authorize(actor, LEADS_READ);
  // One round trip: the lead and its last messages together.
  const [row] = await db.query<(LeadRow & { activity: (Omit<MessageRow, 'at'> & { at: string })[] })[]>(
    `SELECT ${LEAD_COLUMNS.split(',')
      .map((c) => `l.${c.trim()}`)
      .join(', ')},
            coalesce((SELECT json_agg(m ORDER BY m.at DESC, m.id DESC) FROM (
              SELECT id, direction, channel, status, left(body, $3) AS body, at FROM messages
               WHERE lead_id = l.id ORDER BY at DESC, id DESC LIMIT $4) m), '[]') AS activity
       FROM leads l WHERE l.id = $1 AND l.workspace_id = $2`,
    [leadId, workspaceId, ACTIVITY_BODY_LIMIT, RECENT_ACTIVITY_LIMIT],
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
}
