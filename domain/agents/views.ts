import {
  accepted,
  arrayOf,
  boolean,
  dateTime,
  nullable,
  object,
  oneOf,
  page,
  string,
  uuid,
} from '../kernel/shapes';
import type { JobNames } from '../kernel/operation';
import {
  ACTION_KINDS,
  AGENT_STATUSES,
  AGENT_TYPES,
  DRAFT_STATUSES,
  REVIEW_LEVELS,
  RUN_STATUSES,
  RUN_TRIGGERS,
  type Agent,
  type AgentAction,
  type AgentDraft,
  type AgentRun,
  type Cadence,
} from './entities';
import { cadenceField, limitsField, sourcesField } from './schemas';

const DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** "Mon, Wed, Fri at 09:00" */
export const cadenceText = (c: Cadence) =>
  `${[...c.days]
    .sort()
    .map((d) => DAY_NAMES[d - 1])
    .join(', ')} at ${c.time}`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** What Temporal says of the agent's schedule (an operator may have paused it in the Web UI). */
export type ScheduleState = { exists: boolean; paused: boolean; note: string | null; next_runs: string[] };

/** An agent as every door shows it, with its Temporal schedule's name (`names`) and, asked, its state. */
export const agentView = (a: Agent, names: JobNames, schedule?: ScheduleState) => ({
  id: a.id,
  name: a.name,
  type: a.type,
  status: a.status,
  cadence: a.cadence,
  sources: a.sources,
  limits: a.limits,
  review_level: a.review_level,
  template_version: a.template_version,
  schedule_id: names.agentSchedule(a.id),
  ...(schedule ? { schedule } : {}),
  created_at: a.created_at.toISOString(),
  updated_at: a.updated_at.toISOString(),
});

const SCHEDULE = object(
  { exists: boolean, paused: boolean, note: nullable(string()), next_runs: arrayOf(dateTime) },
  { title: 'AgentSchedule' },
);

export const AGENT = object(
  {
    id: uuid,
    name: string(),
    type: oneOf(AGENT_TYPES),
    status: oneOf(AGENT_STATUSES),
    cadence: nullable(accepted(cadenceField)),
    sources: accepted(sourcesField),
    // Stored with the defaults filled in (create merges them; configure changes one at a time).
    limits: accepted(limitsField, { complete: true }),
    review_level: oneOf(REVIEW_LEVELS),
    template_version: string(),
    schedule_id: string(),
    schedule: SCHEDULE,
    created_at: dateTime,
    updated_at: dateTime,
  },
  { title: 'Agent', optional: ['schedule'] },
);

export const AGENTS = page(AGENT, { title: 'Agents' });

const actionView = (x: AgentAction) => ({
  kind: x.kind,
  lead_id: x.lead_id,
  subject_id: x.subject_id,
  message_id: x.message_id,
  draft_id: x.draft_id,
  outcome: x.outcome,
  at: x.at.toISOString(),
});

export const runView = (r: AgentRun, actions: AgentAction[]) => ({
  id: r.id,
  workflow_id: r.workflow_id,
  trigger: r.trigger,
  status: r.status,
  note: r.note,
  started_at: r.started_at.toISOString(),
  finished_at: iso(r.finished_at),
  actions: actions.map(actionView),
});

const ACTION = object(
  {
    kind: oneOf(ACTION_KINDS),
    lead_id: nullable(uuid),
    subject_id: nullable(uuid),
    message_id: nullable(uuid),
    draft_id: nullable(uuid),
    outcome: string(),
    at: dateTime,
  },
  { title: 'AgentAction' },
);

export const RUNS = page(
  object(
    {
      id: uuid,
      workflow_id: string(),
      trigger: oneOf(RUN_TRIGGERS),
      status: oneOf(RUN_STATUSES),
      note: nullable(string()),
      started_at: dateTime,
      finished_at: nullable(dateTime),
      actions: arrayOf(ACTION),
    },
    { title: 'AgentRun' },
  ),
  { title: 'AgentRuns', extra: { agent_id: uuid } },
);

export const draftView = (d: AgentDraft) => ({
  id: d.id,
  agent_id: d.agent_id,
  run_id: d.run_id,
  lead_id: d.lead_id,
  channel: d.channel,
  subject: d.subject,
  body: d.body,
  template: d.template,
  status: d.status,
  message_id: d.message_id,
  decided_by: d.decided_by,
  decided_at: iso(d.decided_at),
  created_at: d.created_at.toISOString(),
});

export const DRAFT = object(
  {
    id: uuid,
    agent_id: uuid,
    run_id: uuid,
    lead_id: uuid,
    channel: string(),
    subject: nullable(string()),
    body: string(),
    template: string(),
    status: oneOf(DRAFT_STATUSES),
    message_id: nullable(uuid),
    decided_by: nullable(string()),
    decided_at: nullable(dateTime),
    created_at: dateTime,
  },
  { title: 'AgentDraft' },
);

export const DRAFTS = page(DRAFT, { title: 'AgentDrafts' });
