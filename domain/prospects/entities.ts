import {
  clockDefault,
  entity,
  inWorkspace,
  lengthCheck,
  oneOfCheck,
  references,
  uuidKey,
} from '../kernel/entity';

export type ProspectList = { id: string; workspace_id: string; name: string; created_at: Date };
export const ProspectListEntity = entity<ProspectList>({
  name: 'ProspectList',
  tableName: 'prospect_lists',
  columns: {
    id: uuidKey('prospect_lists'),
    workspace_id: { type: 'uuid' },
    name: { type: 'text' },
    created_at: clockDefault,
  },
  relations: inWorkspace('prospect_lists'),
  uniques: [{ name: 'prospect_lists_workspace_name', columns: ['workspace_id', 'name'] }],
  checks: [lengthCheck('prospect_lists', 'name', 1, 200)],
});

export const SOURCING_STATUSES = ['RUNNING', 'COMPLETED', 'FAILED'] as const;

export type SourcingRun = {
  id: string;
  workspace_id: string;
  list_id: string;
  status: (typeof SOURCING_STATUSES)[number];
  scoring_version: string;
  /** Candidates this run scores at most (oldest first); null: every unscored one. */
  max_candidates: number | null;
  scored: number;
  dropped: number;
  /** The agent whose run asked for it, when an agent did. */
  agent_id: string | null;
  created_at: Date;
  /** Set by the workflow's first batch; null while the relay has a workflow to start. */
  workflow_started_at: Date | null;
  finished_at: Date | null;
};
export const SourcingRunEntity = entity<SourcingRun>({
  name: 'SourcingRun',
  tableName: 'sourcing_runs',
  columns: {
    id: uuidKey('sourcing_runs'),
    workspace_id: { type: 'uuid' },
    list_id: { type: 'uuid' },
    status: { type: 'text', default: 'RUNNING' },
    scoring_version: { type: 'text' },
    max_candidates: { type: 'integer', nullable: true },
    scored: { type: 'integer', default: 0 },
    dropped: { type: 'integer', default: 0 },
    agent_id: { type: 'uuid', nullable: true },
    created_at: clockDefault,
    workflow_started_at: { type: 'timestamptz', nullable: true },
    finished_at: { type: 'timestamptz', nullable: true },
  },
  relations: {
    ...inWorkspace('sourcing_runs'),
    list: references('sourcing_runs', 'list_id', 'ProspectList'),
    agent: references('sourcing_runs', 'agent_id', 'Agent', { setNull: true }),
  },
  checks: [
    oneOfCheck('sourcing_runs', 'status', SOURCING_STATUSES),
    { name: 'sourcing_runs_max_candidates_check', expression: '(max_candidates >= 1)' },
  ],
  indices: [{ name: 'sourcing_runs_unstarted', columns: ['created_at'], synchronize: false }],
});

export const PROSPECT_STATUSES = ['NEW', 'SCORED', 'DROPPED', 'APPROVED', 'REJECTED'] as const;
export type ProspectStatus = (typeof PROSPECT_STATUSES)[number];
/** What a CSV row may carry, besides its line. */
export const PROSPECT_FIELDS = [
  'email',
  'phone',
  'first_name',
  'last_name',
  'company',
  'industry',
  'role',
  'country',
  'website',
] as const;
export type ProspectField = (typeof PROSPECT_FIELDS)[number];
export type Reason = { code: string; points: number; detail: string };

export type Prospect = { [K in ProspectField]: string | null } & {
  id: string;
  workspace_id: string;
  list_id: string;
  /** The line of the file it was imported from (the last line of its record). */
  line: number;
  status: ProspectStatus;
  score: number | null;
  reasons: Reason[];
  scoring_version: string | null;
  sourcing_run_id: string | null;
  dropped_reason: string | null;
  lead_id: string | null;
  decision_reason: string | null;
  created_at: Date;
  scored_at: Date | null;
  decided_at: Date | null;
};
const text = { type: 'text', nullable: true } as const;
export const ProspectEntity = entity<Prospect>({
  name: 'Prospect',
  tableName: 'prospects',
  columns: {
    id: uuidKey('prospects'),
    workspace_id: { type: 'uuid' },
    list_id: { type: 'uuid' },
    email: text,
    phone: text,
    first_name: text,
    last_name: text,
    company: text,
    industry: text,
    role: text,
    country: text,
    website: text,
    line: { type: 'integer' },
    status: { type: 'text', default: 'NEW' },
    score: { type: 'integer', nullable: true },
    reasons: { type: 'jsonb', default: () => "'[]'" },
    scoring_version: text,
    sourcing_run_id: { type: 'uuid', nullable: true },
    dropped_reason: text,
    lead_id: { type: 'uuid', nullable: true },
    decision_reason: text,
    created_at: clockDefault,
    scored_at: { type: 'timestamptz', nullable: true },
    decided_at: { type: 'timestamptz', nullable: true },
  },
  relations: {
    ...inWorkspace('prospects'),
    list: references('prospects', 'list_id', 'ProspectList'),
    run: references('prospects', 'sourcing_run_id', 'SourcingRun', { setNull: true }),
    lead: references('prospects', 'lead_id', 'Lead', { setNull: true }),
  },
  checks: [
    oneOfCheck('prospects', 'status', PROSPECT_STATUSES),
    { name: 'prospects_score_check', expression: '((score >= 0) AND (score <= 100))' },
    { name: 'prospects_contact_check', expression: '((email IS NOT NULL) OR (phone IS NOT NULL))' },
  ],
  indices: [
    { name: 'prospects_list_email', columns: ['list_id', 'email'], synchronize: false },
    { name: 'prospects_list_phone', columns: ['list_id', 'phone'], synchronize: false },
    { name: 'prospects_list_status', columns: ['list_id', 'status', 'score', 'id'], synchronize: false },
    { name: 'prospects_workspace', columns: ['workspace_id', 'created_at'], synchronize: false },
  ],
});
