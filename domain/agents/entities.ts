import {
  clockDefault,
  entity,
  inWorkspace,
  lengthCheck,
  oneOfCheck,
  references,
  uuidKey,
} from '../kernel/entity';

export const AGENT_TYPES = ['follow_up', 'prospecting'] as const;
export type AgentType = (typeof AGENT_TYPES)[number];
export const AGENT_STATUSES = ['DRAFT', 'ACTIVE', 'PAUSED', 'STOPPED'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];
export const REVIEW_LEVELS = ['draft', 'send'] as const;
export type ReviewLevel = (typeof REVIEW_LEVELS)[number];

/** When runs fire, in the workspace's time zone: ISO weekdays 1 (Monday) to 7, at `time` (HH:MM). */
export type Cadence = { days: number[]; time: string };
/** Where an agent finds its work: leads by status and source (follow-up), prospect lists (prospecting). */
export type Sources = { lead_statuses?: string[]; lead_sources?: string[]; prospect_lists?: string[] };
/** How much one agent may do: per run, per day (workspace's day), and to one lead in seven days. */
export type Limits = { per_run: number; per_day: number; per_lead_per_week: number };

export type Agent = {
  id: string;
  workspace_id: string;
  name: string;
  type: AgentType;
  status: AgentStatus;
  cadence: Cadence | null;
  sources: Sources;
  limits: Limits;
  review_level: ReviewLevel;
  /** The version of the service's templates the agent writes from (never chosen by the workspace). */
  template_version: string;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  /** A person approved a run now; the relay starts it (`agent:<id>-now-<this time>`) and clears it. */
  run_requested_at: Date | null;
  /** Null while Temporal's schedule `agent:<id>` has yet to be made to match the status (the relay does it). */
  schedule_synced_at: Date | null;
};
export const AgentEntity = entity<Agent>({
  name: 'Agent',
  tableName: 'agents',
  columns: {
    id: uuidKey('agents'),
    workspace_id: { type: 'uuid' },
    name: { type: 'text' },
    type: { type: 'text' },
    status: { type: 'text', default: 'DRAFT' },
    cadence: { type: 'jsonb', nullable: true },
    sources: { type: 'jsonb', default: () => "'{}'" },
    limits: { type: 'jsonb' },
    review_level: { type: 'text', default: 'draft' },
    template_version: { type: 'text' },
    created_by: { type: 'uuid', nullable: true },
    created_at: clockDefault,
    updated_at: clockDefault,
    run_requested_at: { type: 'timestamptz', nullable: true },
    schedule_synced_at: { type: 'timestamptz', nullable: true },
  },
  relations: inWorkspace('agents'),
  checks: [
    lengthCheck('agents', 'name', 1, 200),
    oneOfCheck('agents', 'type', AGENT_TYPES),
    oneOfCheck('agents', 'status', AGENT_STATUSES),
    oneOfCheck('agents', 'review_level', REVIEW_LEVELS),
  ],
  indices: [
    { name: 'agents_workspace', columns: ['workspace_id', 'created_at'], synchronize: false },
    { name: 'agents_unsynced', columns: ['updated_at'], synchronize: false },
  ],
});

export const RUN_TRIGGERS = ['schedule', 'run_now'] as const;
export const RUN_STATUSES = ['RUNNING', 'COMPLETED', 'FAILED'] as const;

export type AgentRun = {
  id: string;
  workspace_id: string;
  agent_id: string;
  /** The Temporal workflow that is the run (`agent:<id>-<time>` from the schedule). */
  workflow_id: string;
  trigger: (typeof RUN_TRIGGERS)[number];
  status: (typeof RUN_STATUSES)[number];
  /** Why a run did less than it could (outside the sending window, a limit reached), or why it failed. */
  note: string | null;
  started_at: Date;
  finished_at: Date | null;
};
export const AgentRunEntity = entity<AgentRun>({
  name: 'AgentRun',
  tableName: 'agent_runs',
  columns: {
    id: uuidKey('agent_runs'),
    workspace_id: { type: 'uuid' },
    agent_id: { type: 'uuid' },
    workflow_id: { type: 'text', unique: true },
    trigger: { type: 'text' },
    status: { type: 'text', default: 'RUNNING' },
    note: { type: 'text', nullable: true },
    started_at: clockDefault,
    finished_at: { type: 'timestamptz', nullable: true },
  },
  relations: {
    ...inWorkspace('agent_runs'),
    agent: references('agent_runs', 'agent_id', 'Agent'),
  },
  uniques: [{ name: 'agent_runs_workflow_id_key', columns: ['workflow_id'] }],
  checks: [
    oneOfCheck('agent_runs', 'trigger', RUN_TRIGGERS),
    oneOfCheck('agent_runs', 'status', RUN_STATUSES),
  ],
  indices: [{ name: 'agent_runs_agent', columns: ['agent_id', 'started_at'], synchronize: false }],
});

export const DRAFT_STATUSES = ['PENDING', 'SENT', 'DISCARDED'] as const;

export type AgentDraft = {
  id: string;
  workspace_id: string;
  agent_id: string;
  run_id: string;
  lead_id: string;
  channel: string;
  subject: string | null;
  body: string;
  /** The template it was written from, with its version (`follow_up.nudge@v1`). */
  template: string;
  status: (typeof DRAFT_STATUSES)[number];
  message_id: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  created_at: Date;
};
export const AgentDraftEntity = entity<AgentDraft>({
  name: 'AgentDraft',
  tableName: 'agent_drafts',
  columns: {
    id: uuidKey('agent_drafts'),
    workspace_id: { type: 'uuid' },
    agent_id: { type: 'uuid' },
    run_id: { type: 'uuid' },
    lead_id: { type: 'uuid' },
    channel: { type: 'text' },
    subject: { type: 'text', nullable: true },
    body: { type: 'text' },
    template: { type: 'text' },
    status: { type: 'text', default: 'PENDING' },
    message_id: { type: 'uuid', nullable: true },
    decided_by: { type: 'text', nullable: true },
    decided_at: { type: 'timestamptz', nullable: true },
    created_at: clockDefault,
  },
  relations: {
    ...inWorkspace('agent_drafts'),
    agent: references('agent_drafts', 'agent_id', 'Agent'),
    run: references('agent_drafts', 'run_id', 'AgentRun'),
    lead: references('agent_drafts', 'lead_id', 'Lead'),
    message: references('agent_drafts', 'message_id', 'Message', { setNull: true }),
  },
  checks: [oneOfCheck('agent_drafts', 'status', DRAFT_STATUSES)],
  indices: [{ name: 'agent_drafts_pending', columns: ['workspace_id', 'created_at'], synchronize: false }],
});

export const ACTION_KINDS = ['sent', 'drafted', 'skipped', 'escalated', 'proposed'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

export type AgentAction = {
  id: string;
  workspace_id: string;
  agent_id: string;
  /** Null for what an agent does between runs (handing over on an inbound message). */
  run_id: string | null;
  kind: ActionKind;
  lead_id: string | null;
  /** What else it acted on: a prospect it proposed, a handoff it opened. */
  subject_id: string | null;
  message_id: string | null;
  draft_id: string | null;
  /** In words: what came of it ("queued", "waiting for review", "opted out of email"). */
  outcome: string;
  at: Date;
};
export const AgentActionEntity = entity<AgentAction>({
  name: 'AgentAction',
  tableName: 'agent_actions',
  columns: {
    id: uuidKey('agent_actions'),
    workspace_id: { type: 'uuid' },
    agent_id: { type: 'uuid' },
    run_id: { type: 'uuid', nullable: true },
    kind: { type: 'text' },
    lead_id: { type: 'uuid', nullable: true },
    subject_id: { type: 'uuid', nullable: true },
    message_id: { type: 'uuid', nullable: true },
    draft_id: { type: 'uuid', nullable: true },
    outcome: { type: 'text' },
    at: clockDefault,
  },
  relations: {
    ...inWorkspace('agent_actions'),
    agent: references('agent_actions', 'agent_id', 'Agent'),
    run: references('agent_actions', 'run_id', 'AgentRun', { nullable: true }),
    lead: references('agent_actions', 'lead_id', 'Lead', { nullable: true }),
    message: references('agent_actions', 'message_id', 'Message', { setNull: true }),
    draft: references('agent_actions', 'draft_id', 'AgentDraft', { setNull: true }),
  },
  checks: [oneOfCheck('agent_actions', 'kind', ACTION_KINDS)],
  indices: [
    { name: 'agent_actions_once', columns: ['run_id', 'lead_id'], synchronize: false },
    { name: 'agent_actions_workspace', columns: ['workspace_id', 'at'], synchronize: false },
    { name: 'agent_actions_agent', columns: ['agent_id', 'at'], synchronize: false },
    { name: 'agent_actions_lead', columns: ['lead_id', 'at'], synchronize: false },
  ],
});

const HANDOFF_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
const HANDOFF_STATUSES = ['OPEN', 'RESOLVED'] as const;

export type Handoff = {
  id: string;
  workspace_id: string;
  lead_id: string;
  agent_id: string | null;
  /** The inbound message that needed a person. */
  message_id: string | null;
  channel: string;
  reason: string;
  priority: (typeof HANDOFF_PRIORITIES)[number];
  status: (typeof HANDOFF_STATUSES)[number];
  created_at: Date;
  resolved_at: Date | null;
};
export const HandoffEntity = entity<Handoff>({
  name: 'Handoff',
  tableName: 'handoffs',
  columns: {
    id: uuidKey('handoffs'),
    workspace_id: { type: 'uuid' },
    lead_id: { type: 'uuid' },
    agent_id: { type: 'uuid', nullable: true },
    message_id: { type: 'uuid', nullable: true },
    channel: { type: 'text' },
    reason: { type: 'text' },
    priority: { type: 'text' },
    status: { type: 'text', default: 'OPEN' },
    created_at: clockDefault,
    resolved_at: { type: 'timestamptz', nullable: true },
  },
  relations: {
    ...inWorkspace('handoffs'),
    lead: references('handoffs', 'lead_id', 'Lead'),
    agent: references('handoffs', 'agent_id', 'Agent', { setNull: true }),
    message: references('handoffs', 'message_id', 'Message', { setNull: true }),
  },
  checks: [
    oneOfCheck('handoffs', 'priority', HANDOFF_PRIORITIES),
    oneOfCheck('handoffs', 'status', HANDOFF_STATUSES),
  ],
  indices: [{ name: 'handoffs_lead', columns: ['lead_id', 'created_at'], synchronize: false }],
});
