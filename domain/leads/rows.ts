import type { EntityManager } from 'typeorm';
import { notFound } from '../kernel/errors';
import type { LeadStatus } from './status-rules';

export type LeadRow = {
  id: string;
  workspace_id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  postcode: string | null;
  status: LeadStatus;
  source: string | null;
  follow_up: 'NOT_STARTED' | 'ACTIVE' | 'STOPPED';
  needs_attention: boolean;
  consent_at: Date | null;
  answers: Record<string, unknown>;
  score_id: string | null;
  score_total: number | null;
  score_grade: string | null;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export const LEAD_COLUMNS = `id, workspace_id, first_name, last_name, email, phone, postcode, status, source, follow_up,
  needs_attention, consent_at, answers, score_id, score_total, score_grade, archived_at, created_at, updated_at`;

export const CONTACT_FIELDS = ['first_name', 'last_name', 'email', 'phone', 'postcode'] as const;
export type ContactField = (typeof CONTACT_FIELDS)[number];
export type Contact = Partial<Record<ContactField, string | null>>;

/** The lead as every door shows it. */
export const leadView = (l: LeadRow) => ({
  id: l.id,
  first_name: l.first_name,
  last_name: l.last_name,
  email: l.email,
  phone: l.phone,
  postcode: l.postcode,
  status: l.status,
  source: l.source,
  needs_attention: l.needs_attention,
  follow_up: l.follow_up,
  score: l.score_id ? { total: l.score_total, grade: l.score_grade } : null,
  archived: l.archived_at !== null,
  created_at: l.created_at.toISOString(),
  updated_at: l.updated_at.toISOString(),
});
export type LeadView = ReturnType<typeof leadView>;

/**
 * Loads a lead for a change, row-locked until the transaction ends. Scoped to the actor's workspace
 * when there is one: another workspace's lead is "not found", never "forbidden".
 */
export async function lockLead(
  m: EntityManager,
  leadId: string,
  workspaceId: string | undefined,
): Promise<LeadRow> {
  const rows = await m.query<LeadRow[]>(
    `SELECT ${LEAD_COLUMNS} FROM leads WHERE id = $1 AND ($2::uuid IS NULL OR workspace_id = $2) FOR UPDATE`,
    [leadId, workspaceId ?? null],
  );
  if (!rows[0]) throw notFound('lead');
  return rows[0];
}

/** Checks that a lead exists in the actor's workspace (any, for the operator); another's is "not found". */
export async function requireLead(
  m: Pick<EntityManager, 'query'>,
  leadId: string,
  workspaceId: string | undefined,
): Promise<void> {
  const rows: unknown[] = await m.query(
    'SELECT 1 FROM leads WHERE id = $1 AND ($2::uuid IS NULL OR workspace_id = $2)',
    [leadId, workspaceId ?? null],
  );
  if (rows.length === 0) throw notFound('lead');
}
