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
  const [lead] = await db.query<LeadRow[]>(
    `SELECT ${LEAD_COLUMNS} FROM leads WHERE id = $1 AND workspace_id = $2`,
    [leadId, workspaceId],
  );
  if (!lead) throw notFound('lead');
  const messages = await db.query<MessageRow[]>(
    `SELECT id, direction, channel, status, left(body, $2) AS body, at FROM messages
      WHERE lead_id = $1 ORDER BY at DESC, id DESC LIMIT $3`,
    [leadId, ACTIVITY_BODY_LIMIT, RECENT_ACTIVITY_LIMIT],
  );
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
