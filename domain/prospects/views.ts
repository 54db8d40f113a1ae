import type { JobNames } from '../kernel/operation';
import { arrayOf, dateTime, integer, nullable, object, oneOf, page, string, uuid } from '../kernel/shapes';
import { PROSPECT_STATUSES, SOURCING_STATUSES, type Prospect, type SourcingRun } from './entities';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const prospectView = (p: Prospect, listName?: string) => ({
  id: p.id,
  status: p.status,
  score: p.score,
  reasons: p.reasons,
  scoring_version: p.scoring_version,
  dropped_reason: p.dropped_reason,
  first_name: p.first_name,
  last_name: p.last_name,
  email: p.email,
  phone: p.phone,
  company: p.company,
  industry: p.industry,
  role: p.role,
  country: p.country,
  website: p.website,
  source: { list_id: p.list_id, list: listName ?? null, line: p.line, sourcing_run_id: p.sourcing_run_id },
  lead_id: p.lead_id,
  decision_reason: p.decision_reason,
  created_at: p.created_at.toISOString(),
  scored_at: iso(p.scored_at),
  decided_at: iso(p.decided_at),
});

const text = nullable(string());
const REASON = object({ code: string(), points: integer(), detail: string() }, { title: 'ScoreReason' });

export const PROSPECT = object(
  {
    id: uuid,
    status: oneOf(PROSPECT_STATUSES),
    score: nullable(integer({ minimum: 0, maximum: 100 })),
    reasons: arrayOf(REASON),
    scoring_version: text,
    dropped_reason: text,
    first_name: text,
    last_name: text,
    email: text,
    phone: text,
    company: text,
    industry: text,
    role: text,
    country: text,
    website: text,
    source: object({ list_id: uuid, list: text, line: integer(), sourcing_run_id: nullable(uuid) }),
    lead_id: nullable(uuid),
    decision_reason: text,
    created_at: dateTime,
    scored_at: nullable(dateTime),
    decided_at: nullable(dateTime),
  },
  { title: 'Prospect' },
);

export const PROSPECTS = page(PROSPECT, { title: 'Prospects' });

/** A sourcing run as every door shows it, with its workflow's name (`names`), as the Web UI lists it. */
export const runView = (r: SourcingRun, listName: string, names: JobNames) => ({
  id: r.id,
  workflow_id: names.sourcingRun(r.id),
  list: { id: r.list_id, name: listName },
  status: r.status,
  scoring_version: r.scoring_version,
  max_candidates: r.max_candidates,
  scored: r.scored,
  dropped: r.dropped,
  created_at: r.created_at.toISOString(),
  finished_at: iso(r.finished_at),
});

export const SOURCING_RUN = object(
  {
    id: uuid,
    workflow_id: string(),
    list: object({ id: uuid, name: string() }),
    status: oneOf(SOURCING_STATUSES),
    scoring_version: string(),
    max_candidates: nullable(integer()),
    scored: integer(),
    dropped: integer(),
    created_at: dateTime,
    finished_at: nullable(dateTime),
  },
  { title: 'SourcingRun' },
);

export const IMPORT_REPORT = object(
  {
    list: object({ id: uuid, name: string() }),
    rows: integer(),
    imported: integer(),
    already_present: integer(),
    bad_rows: integer(),
    bad: arrayOf(object({ line: integer(), field: string(), reason: string() }, { optional: ['field'] })),
  },
  { title: 'ProspectImport' },
);
