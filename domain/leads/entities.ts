import {
  clockDefault,
  entity,
  inWorkspace,
  lengthCheck,
  oneOfCheck,
  references,
  uuidKey,
} from '../kernel/entity';
import type { Intent } from '../kernel/event-catalogue';
import { INTENTS } from './reply-reading';
import { LEAD_STATUSES, type LeadStatus } from './status-rules';

const FOLLOW_UP = ['NOT_STARTED', 'ACTIVE', 'STOPPED'] as const;
const TOUCH_OUTCOMES = ['CREATED', 'MERGED', 'DUPLICATE', 'SUPPRESSED'] as const;
export const GRADES = ['A', 'B', 'C', 'D'] as const;

/** What GET /leads?query= matches: name, email and phone, lower-cased (a stored generated column). */
const SEARCH_TEXT =
  "lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(phone, ''))";

export type Lead = {
  id: string;
  workspace_id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  postcode: string | null;
  status: LeadStatus;
  source: string | null;
  follow_up: (typeof FOLLOW_UP)[number];
  needs_attention: boolean;
  consent_at: Date | null;
  answers: Record<string, unknown>;
  score_id: string | null;
  score_total: number | null;
  score_grade: string | null;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
  search_text: string;
  /** Our first message to the lead (set by a trigger on messages: every path that writes one). */
  first_response_at: Date | null;
  /** When it first reached BOOKED, and WON (set by a trigger on its status; kept if it moves on). */
  booked_at: Date | null;
  won_at: Date | null;
  /** Buying intent from its classified inbound messages (domain/leads/intent.ts); null until one. */
  intent: Intent | null;
  intent_score: number | null;
};
export const LeadEntity = entity<Lead>({
  name: 'Lead',
  tableName: 'leads',
  columns: {
    id: uuidKey('leads'),
    workspace_id: { type: 'uuid' },
    first_name: { type: 'text', nullable: true },
    last_name: { type: 'text', nullable: true },
    email: { type: 'text', nullable: true },
    phone: { type: 'text', nullable: true },
    postcode: { type: 'text', nullable: true },
    status: { type: 'text', default: 'NEW' },
    source: { type: 'text', nullable: true },
    follow_up: { type: 'text', default: 'NOT_STARTED' },
    needs_attention: { type: 'boolean', default: false },
    consent_at: { type: 'timestamptz', nullable: true },
    answers: { type: 'jsonb', default: () => "'{}'" },
    score_id: { type: 'uuid', nullable: true },
    score_total: { type: 'integer', nullable: true },
    score_grade: { type: 'text', nullable: true },
    archived_at: { type: 'timestamptz', nullable: true },
    created_at: clockDefault,
    updated_at: clockDefault,
    search_text: {
      type: 'text',
      nullable: true,
      generatedType: 'STORED',
      asExpression: SEARCH_TEXT,
      insert: false,
      update: false,
      select: false,
    },
    first_response_at: { type: 'timestamptz', nullable: true },
    booked_at: { type: 'timestamptz', nullable: true },
    won_at: { type: 'timestamptz', nullable: true },
    intent: { type: 'text', nullable: true },
    intent_score: { type: 'integer', nullable: true },
  },
  relations: inWorkspace('leads'),
  checks: [
    { name: 'leads_email_check', expression: '(email = lower(btrim(email)))' },
    { name: 'leads_phone_check', expression: "(phone ~ '^\\+?[0-9]{3,20}$'::text)" },
    oneOfCheck('leads', 'status', LEAD_STATUSES),
    oneOfCheck('leads', 'follow_up', FOLLOW_UP),
    oneOfCheck('leads', 'intent', INTENTS),
    { name: 'leads_intent_score_check', expression: '((intent_score >= 0) AND (intent_score <= 100))' },
  ],
  indices: [
    // One live lead per address: intake matching relies on it, concurrent intakes cannot both create.
    {
      name: 'leads_email',
      columns: ['workspace_id', 'email'],
      unique: true,
      where: '((email IS NOT NULL) AND (archived_at IS NULL))',
    },
    {
      name: 'leads_phone',
      columns: ['workspace_id', 'phone'],
      unique: true,
      where: '((phone IS NOT NULL) AND (archived_at IS NULL))',
    },
    // DESC columns and a trigram GIN index, which TypeORM cannot declare (the migrations made them).
    { name: 'leads_recent', columns: ['workspace_id', 'created_at', 'id'], synchronize: false },
    { name: 'leads_status', columns: ['workspace_id', 'status', 'created_at'], synchronize: false },
    { name: 'leads_search', columns: ['search_text'], synchronize: false },
    // Covering and partial, which TypeORM cannot declare either: the analytics summary's index-only
    // scans of a period's leads and of its answered ones (the migrations made them).
    { name: 'leads_analytics', columns: ['workspace_id', 'created_at'], synchronize: false },
    { name: 'leads_first_response', columns: ['workspace_id', 'created_at'], synchronize: false },
  ],
});

export type LeadNote = {
  id: string;
  workspace_id: string;
  lead_id: string;
  body: string;
  author_user_id: string | null;
  created_at: Date;
};
export const LeadNoteEntity = entity<LeadNote>({
  name: 'LeadNote',
  tableName: 'lead_notes',
  columns: {
    id: uuidKey('lead_notes'),
    workspace_id: { type: 'uuid' },
    lead_id: { type: 'uuid' },
    body: { type: 'text' },
    author_user_id: { type: 'uuid', nullable: true },
    created_at: clockDefault,
  },
  relations: { ...inWorkspace('lead_notes'), lead: references('lead_notes', 'lead_id', 'Lead') },
  checks: [lengthCheck('lead_notes', 'body', 1, 2000)],
  indices: [{ name: 'lead_notes_lead', columns: ['lead_id', 'created_at'], synchronize: false }],
});

export type Touch = {
  id: string;
  workspace_id: string;
  lead_id: string;
  source_type: string;
  source: string;
  outcome: (typeof TOUCH_OUTCOMES)[number];
  contact: Record<string, unknown>;
  created_at: Date;
};
export const TouchEntity = entity<Touch>({
  name: 'Touch',
  tableName: 'touches',
  columns: {
    id: uuidKey('touches'),
    workspace_id: { type: 'uuid' },
    lead_id: { type: 'uuid' },
    source_type: { type: 'text' },
    source: { type: 'text' },
    outcome: { type: 'text' },
    contact: { type: 'jsonb' },
    created_at: clockDefault,
  },
  relations: { ...inWorkspace('touches'), lead: references('touches', 'lead_id', 'Lead') },
  checks: [oneOfCheck('touches', 'outcome', TOUCH_OUTCOMES)],
  indices: [{ name: 'touches_lead', columns: ['lead_id', 'created_at'], synchronize: false }],
});

export type Suppression = {
  id: string;
  workspace_id: string;
  address: string;
  channel: string;
  reason: string;
  source: string;
  created_at: Date;
};
export const SuppressionEntity = entity<Suppression>({
  name: 'Suppression',
  tableName: 'suppressions',
  columns: {
    id: uuidKey('suppressions'),
    workspace_id: { type: 'uuid' },
    address: { type: 'text' },
    channel: { type: 'text' },
    reason: { type: 'text' },
    source: { type: 'text' },
    created_at: clockDefault,
  },
  relations: inWorkspace('suppressions'),
  uniques: [
    {
      name: 'suppressions_workspace_id_address_channel_key',
      columns: ['workspace_id', 'address', 'channel'],
    },
  ],
});

export type Score = {
  id: string;
  workspace_id: string;
  lead_id: string;
  total: number;
  grade: (typeof GRADES)[number];
  confidence: string;
  trigger_event: string;
  scoring_version: string;
  reasons: unknown;
  created_at: Date;
};
export const ScoreEntity = entity<Score>({
  name: 'Score',
  tableName: 'scores',
  columns: {
    id: uuidKey('scores'),
    workspace_id: { type: 'uuid' },
    lead_id: { type: 'uuid' },
    total: { type: 'integer' },
    grade: { type: 'text' },
    confidence: { type: 'numeric', precision: 4, scale: 3 },
    trigger_event: { type: 'text' },
    scoring_version: { type: 'text' },
    reasons: { type: 'jsonb' },
    created_at: clockDefault,
  },
  relations: { ...inWorkspace('scores'), lead: references('scores', 'lead_id', 'Lead') },
  checks: [
    { name: 'scores_total_check', expression: '((total >= 0) AND (total <= 100))' },
    oneOfCheck('scores', 'grade', GRADES),
    {
      name: 'scores_confidence_check',
      expression: '((confidence >= (0)::numeric) AND (confidence <= (1)::numeric))',
    },
  ],
  indices: [{ name: 'scores_lead', columns: ['lead_id', 'created_at'], synchronize: false }],
});
