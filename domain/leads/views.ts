import type { Lead } from './entities';

export const CONTACT_FIELDS = ['first_name', 'last_name', 'email', 'phone', 'postcode'] as const;
type ContactField = (typeof CONTACT_FIELDS)[number];
export type Contact = Partial<Pick<Lead, ContactField>>;

/** The lead as every door shows it. */
export const leadView = (l: Omit<Lead, 'workspace_id' | 'search_text'>) => ({
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
