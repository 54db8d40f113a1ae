import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';

export type Subject = { type: 'lead' | 'endpoint'; id: string };

export const newEventId = () => `evt_${randomUUID().replace(/-/g, '')}`;

/**
 * Appends an event to the outbox with the caller's transaction, so the event exists exactly when
 * the change that caused it does. `data` also carries subject_type, subject_id and occurred_at.
 */
export async function emitEvent(
  m: Pick<EntityManager, 'query'>,
  workspaceId: string,
  type: string,
  subject: Subject,
  data: Record<string, unknown>,
): Promise<string> {
  const id = newEventId();
  await m.query(
    `INSERT INTO events (id, workspace_id, type, data)
     VALUES ($1, $2, $3, jsonb_build_object('subject_type', $4::text, 'subject_id', $5::text,
             'occurred_at', to_char(date_trunc('milliseconds', clock_timestamp()) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) || $6::jsonb)`,
    [id, workspaceId, type, subject.type, subject.id, JSON.stringify(data)],
  );
  return id;
}
