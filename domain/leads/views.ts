import * as yup from 'yup';
import { toJsonSchema, type JsonSchema } from '../kernel/json-schema';
import {
  arrayOf,
  boolean,
  dateTime,
  integer,
  nullable,
  object,
  oneOf,
  page,
  string,
  uuid,
} from '../kernel/shapes';
import { AUTHENTICITY, CHANNELS, OUTBOUND_STATUSES } from '../kernel/channels';
import { contactFields, MAX_SOURCE_LENGTH } from './schemas';
import { LEAD_STATUSES } from './status-rules';
import type { Lead } from './entities';

/** The contact fields as stored: the same definitions intake and PATCH validate with. */
const contact = toJsonSchema(yup.object(contactFields)).properties as Record<string, JsonSchema>;

/** A lead as every door shows it (`leadView`). */
export const LEAD = object(
  {
    id: uuid,
    ...contact,
    status: oneOf(LEAD_STATUSES),
    // The intake's source, or the prospect list's name: both at most 200 characters.
    source: nullable(string({ maxLength: MAX_SOURCE_LENGTH })),
    needs_attention: boolean,
    follow_up: oneOf(['NOT_STARTED', 'ACTIVE', 'STOPPED']),
    score: nullable(
      object({ total: integer({ minimum: 0, maximum: 100 }), grade: oneOf(['A', 'B', 'C', 'D']) }),
    ),
    archived: boolean,
    created_at: dateTime,
    updated_at: dateTime,
  },
  { title: 'Lead' },
);

export const LEAD_LIST = page(LEAD, { title: 'LeadList', max: 50 });

const ACTIVITY_ITEM = object(
  {
    type: oneOf(['message']),
    id: uuid,
    direction: oneOf(['inbound', 'outbound']),
    channel: oneOf(CHANNELS),
    status: oneOf(['received', ...OUTBOUND_STATUSES]),
    body: string({ maxLength: 500 }),
    at: dateTime,
    authenticity: AUTHENTICITY,
  },
  { title: 'ActivityItem' },
);

export const LEAD_WITH_ACTIVITY = object(
  { data: LEAD, recent_activity: arrayOf(ACTIVITY_ITEM, { maxItems: 20 }) },
  { title: 'LeadWithActivity' },
);

/** What intake answers; a suppressed contact is a refusal (`suppressed`), never this. */
export const INTAKE_RESULT = object(
  { data: LEAD, outcome: oneOf(['CREATED', 'MERGED', 'DUPLICATE']) },
  { title: 'IntakeResponse' },
);

const WARNING_CODES = ['status_unchanged', 'follow_up_stopped'];

const WARNING = object(
  { code: oneOf(WARNING_CODES), message: string({ maxLength: 200 }) },
  { title: 'Warning' },
);

/** A warning a status change answers with. */
export type Warning = { code: 'status_unchanged' | 'follow_up_stopped'; message: string };

/** What a status change warns of: each code at most once. */
export const WARNINGS = arrayOf(WARNING, { maxItems: WARNING_CODES.length });

export const STATUS_RESULT = object({ lead: LEAD, warnings: WARNINGS }, { title: 'StatusChange' });

export const NOTE_RESULT = object(
  { note: object({ id: uuid, body: string(), created_at: dateTime }), lead: LEAD },
  { title: 'NoteAdded' },
);

export const SUPPRESSION = object(
  {
    id: uuid,
    workspace_id: uuid,
    address: string(),
    channel: oneOf(['ALL', ...CHANNELS]),
    reason: string(),
    source: string(),
  },
  { title: 'Suppression' },
);

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
