import * as yup from 'yup';
import { DomainError, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, WRITE, defineOperation, type OperationContext } from '../../kernel/operation';
import { object, oneOf, nullable, uuid } from '../../kernel/shapes';
import { pageSize } from '../../kernel/validate';
import { type IntakeResult, recordIntake, suppressedError, workspaceTimezone } from '../../leads';
import { PROSPECT_STATUSES, type Prospect } from '../entities';
import { CSV_ENCODINGS, importCsv } from '../import';
import { prospectsIn } from '../repository';
import { PROSPECTS_READ, PROSPECTS_WRITE } from '../requirements';
import { startSourcing } from '../sourcing';
import { IMPORT_REPORT, PROSPECT, PROSPECTS, SOURCING_RUN, prospectView } from '../views';

const listName = describe(
  yup.string().trim().min(1, 'list must not be empty').max(200, 'list must be at most 200 characters'),
  'A prospect list, by name (or id).',
);
const prospectIdField = describe(
  yup
    .string()
    .typeError('${path} must be a UUID')
    .uuid('${path} must be a UUID')
    .required('${path} is required'),
  'The prospect id.',
);

/** A prospect of this workspace, held until the transaction ends, or "not found". */
async function heldProspect(ctx: OperationContext, id: string): Promise<Prospect> {
  const p = await prospectsIn(ctx.data).lock(id);
  if (!p) throw notFound('prospect');
  return p;
}

const withList = async (ctx: OperationContext, p: Prospect) =>
  prospectView(p, (await prospectsIn(ctx.data.in(p.workspace_id)).listById(p.list_id))?.name);

export const importProspects = defineOperation({
  name: 'prospect.import',
  title: 'Import a candidate list from CSV',
  description:
    'Reads a CSV file on the server into a prospect list (made if new): columns email, phone, first_name, last_name, company, industry, role, country, website (at least email or phone). A file that cannot be read as a whole (a wrong header, bytes not valid in its encoding, a record over 64 KiB or a field over 4 KiB, a quote not closed, no rows) is refused, naming the line, and nothing is stored; bad rows are reported by line and skipped; a candidate already in the list is left as it is.',
  returns: '{ list, rows, imported, already_present, bad_rows, bad: [{ line, field, reason }] }.',
  requirement: PROSPECTS_WRITE,
  reach: 'workspace',
  // It reads a file on the server: the operator's shell only, never a key.
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
  input: yup.object({
    file: describe(
      yup.string().min(1).required('file is required'),
      'Path of the CSV file: a header row, then a row per prospect.',
    ),
    list: listName.required('list is required'),
    encoding: describe(
      yup
        .string()
        .oneOf([...CSV_ENCODINGS], `encoding must be one of ${CSV_ENCODINGS.join(', ')}`)
        .default('utf-8'),
      "How the file's text is encoded: utf-8 (the default; a BOM is accepted), or latin1 / windows-1252 for older spreadsheet exports (both read as windows-1252). A byte the encoding does not allow refuses the file, naming its line.",
    ),
  }),
  output: IMPORT_REPORT,
  doors: {
    admin: {
      command: 'prospect import',
      flags: (f) => ({ file: f.file, list: f.list, encoding: f.encoding }),
    },
  },
  summary: (i) => `Import ${i.file} into the prospect list "${i.list}"`,
  run: async (ctx, i) => {
    const report = await importCsv(ctx.data, {
      file: i.file,
      list: i.list,
      encoding: i.encoding,
      timezone: await workspaceTimezone(ctx.data, ctx.workspaceId!),
    });
    ctx.audit(ctx.workspaceId!, {
      list_id: report.list.id,
      rows: report.rows,
      imported: report.imported,
      already_present: report.already_present,
      bad_rows: report.bad_rows,
    });
    return report;
  },
});

export const startProspectSourcing = defineOperation({
  name: 'prospect.start_sourcing',
  title: 'Score a prospect list',
  description:
    'Starts a sourcing run over a prospect list: each unscored candidate is scored with the versioned rules (fit by industry, area, role and completeness; every score has reasons and its scoring_version); candidates already leads or suppressed are dropped. Runs in the background; read the results with prospect.list.',
  returns: 'The sourcing run (status RUNNING; its workflow is sourcing:<id>).',
  requirement: PROSPECTS_WRITE,
  reach: 'workspace',
  ...WRITE,
  input: yup.object({
    list: listName.required('list is required'),
    limit: describe(
      yup
        .number()
        .typeError('limit must be a number')
        .integer('limit must be a whole number')
        .min(1, 'limit must be at least 1')
        .max(10_000, 'limit must be at most 10000'),
      'At most this many candidates in this run, oldest first (default: all unscored).',
    ),
  }),
  output: SOURCING_RUN,
  doors: {
    mcp: true,
    admin: { command: 'prospect start-sourcing', flags: (f) => ({ list: f.list, limit: f.limit }) },
  },
  summary: (i) => `Score the prospect list "${i.list}"`,
  run: (ctx, i) => startSourcing(ctx, i),
});

export const listProspects = defineOperation({
  name: 'prospect.list',
  title: 'List prospects',
  description: 'Prospects, best score first, by list, status and minimum score.',
  returns: '{ data: [prospect], count }.',
  requirement: PROSPECTS_READ,
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({
    list: listName,
    status: describe(
      yup.string().oneOf([...PROSPECT_STATUSES], `status must be one of ${PROSPECT_STATUSES.join(', ')}`),
      'NEW (not scored yet), SCORED, DROPPED (already a lead, or suppressed), APPROVED or REJECTED.',
    ),
    min_score: describe(
      yup
        .number()
        .typeError('min_score must be a number')
        .integer('min_score must be a whole number')
        .min(0, 'min_score must be 0 to 100')
        .max(100, 'min_score must be 0 to 100'),
      'Only prospects scoring at least this (0 to 100).',
    ),
    limit: describe(pageSize(100), 'How many, 1 to 100 (default 25).'),
  }),
  output: PROSPECTS,
  doors: {
    mcp: true,
    admin: {
      command: 'prospect list',
      flags: (f) => ({ list: f.list, status: f.status, min_score: f['min-score'], limit: f.limit }),
    },
  },
  summary: () => 'List prospects',
  run: async (ctx, i) => {
    const repo = prospectsIn(ctx.data);
    const list = i.list === undefined ? undefined : await repo.mustFindList(i.list);
    const rows = await repo.search({
      listId: list?.id,
      status: i.status,
      minScore: i.min_score,
      limit: i.limit,
    });
    return { data: rows.map((p) => prospectView(p, list?.name)), count: rows.length };
  },
});

export const getProspect = defineOperation({
  name: 'prospect.get',
  title: 'Read a prospect',
  description:
    'One prospect: its details, score with reasons and scoring_version, source (list and file line) and status.',
  returns: 'The prospect.',
  requirement: PROSPECTS_READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({ prospectId: prospectIdField }),
  output: PROSPECT,
  doors: { mcp: true, admin: { command: 'prospect get', flags: (f) => ({ prospectId: f.id }) } },
  summary: (i) => `Read prospect ${i.prospectId}`,
  run: async (ctx, { prospectId }) => {
    const p = await prospectsIn(ctx.data).find(prospectId);
    if (!p) throw notFound('prospect');
    return withList(ctx, p);
  },
});

type Approved = {
  prospect: ReturnType<typeof prospectView>;
  lead_id: string | null;
  outcome: IntakeResult['outcome'];
};

/**
 * A person turns a prospect into a lead through the intake every lead goes through (dedup, suppression,
 * `lead.created` / `lead.touched`, qualification), with source type `prospecting` and the list as its
 * source. A suppressed contact is refused like POST /leads (409 `suppressed`); the prospect is dropped.
 */
export const approveProspect = defineOperation({
  name: 'prospect.approve',
  title: 'Approve a prospect as a lead',
  description:
    'Turns a prospect into a lead: matched against existing leads (merged, not duplicated), refused when the contact is suppressed, then qualified. Follow-up is not started. Approving one already approved changes nothing.',
  returns:
    '{ prospect, lead_id, outcome: CREATED | MERGED | DUPLICATE }; a suppressed contact is refused (suppressed).',
  requirement: PROSPECTS_WRITE,
  reach: 'record',
  ...WRITE,
  idempotent: true,
  input: yup.object({ prospectId: prospectIdField }),
  output: object(
    {
      prospect: PROSPECT,
      lead_id: nullable(uuid),
      outcome: oneOf(['CREATED', 'MERGED', 'DUPLICATE', 'SUPPRESSED']),
    },
    { title: 'ProspectApproval' },
  ),
  doors: { mcp: true, admin: { command: 'prospect approve', flags: (f) => ({ prospectId: f.id }) } },
  refusal: (out: Approved) => (out.outcome === 'SUPPRESSED' ? suppressedError() : undefined),
  summary: (i) => `Approve prospect ${i.prospectId} as a lead`,
  run: async (ctx, { prospectId }): Promise<Approved> => {
    const p = await heldProspect(ctx, prospectId);
    if (p.status === 'APPROVED')
      return { prospect: await withList(ctx, p), lead_id: p.lead_id, outcome: 'DUPLICATE' };
    if (p.status === 'REJECTED')
      throw new DomainError('conflict', 'The prospect was rejected: it cannot be approved.');
    const data = ctx.data.in(p.workspace_id);
    const list = await prospectsIn(data).listById(p.list_id);
    const answers = Object.fromEntries(
      (['company', 'industry', 'role', 'country', 'website'] as const)
        .filter((f) => p[f] !== null)
        .map((f) => [f, p[f]]),
    );
    const intake = await recordIntake(
      { ...ctx, data, workspaceId: p.workspace_id },
      {
        contact: { first_name: p.first_name, last_name: p.last_name, email: p.email, phone: p.phone },
        source: list!.name,
        sourceType: 'prospecting',
        answers,
        consentAt: null,
      },
    );
    const changed = await prospectsIn(data).change(
      p.id,
      intake.outcome === 'SUPPRESSED'
        ? { status: 'DROPPED', dropped_reason: 'suppressed', decided_at: new Date() }
        : { status: 'APPROVED', lead_id: intake.data!.id, decided_at: new Date() },
    );
    ctx.audit(p.workspace_id, {
      prospect_id: p.id,
      lead_id: intake.data?.id ?? null,
      outcome: intake.outcome,
    });
    return {
      prospect: prospectView(changed, list!.name),
      lead_id: intake.data?.id ?? null,
      outcome: intake.outcome,
    };
  },
});

export const rejectProspect = defineOperation({
  name: 'prospect.reject',
  title: 'Reject a prospect',
  description: 'Rejects a prospect, with the reason; it never becomes a lead from this list.',
  returns: 'The prospect, REJECTED.',
  requirement: PROSPECTS_WRITE,
  reach: 'record',
  ...WRITE,
  idempotent: true,
  input: yup.object({
    prospectId: prospectIdField,
    reason: describe(
      yup
        .string()
        .trim()
        .required('reason is required')
        .min(1, 'reason must not be empty')
        .max(500, 'reason must be at most 500 characters'),
      'Why (for the record).',
    ),
  }),
  output: PROSPECT,
  doors: {
    mcp: true,
    admin: { command: 'prospect reject', flags: (f) => ({ prospectId: f.id, reason: f.reason }) },
  },
  summary: (i) => `Reject prospect ${i.prospectId}`,
  run: async (ctx, { prospectId, reason }) => {
    const p = await heldProspect(ctx, prospectId);
    if (p.status === 'REJECTED') return withList(ctx, p);
    if (p.status === 'APPROVED')
      throw new DomainError('conflict', 'The prospect was approved and is a lead: it cannot be rejected.');
    const changed = await prospectsIn(ctx.data.in(p.workspace_id)).change(p.id, {
      status: 'REJECTED',
      decision_reason: reason,
      decided_at: new Date(),
    });
    ctx.audit(p.workspace_id, { prospect_id: p.id });
    return withList(ctx, changed);
  },
});
