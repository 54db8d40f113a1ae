import * as yup from 'yup';
import type { EntityManager } from 'typeorm';
import { DomainError } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { defineOperation, type OperationContext } from '../../kernel/operation';
import { recordInboundMessageIn } from '../../conversations/messages';
import { normaliseContact, workspaceTimezone } from '../contact-input';
import { qualifyLeadIn } from '../qualify';
import { LEADS_WRITE } from '../requirements';
import { CONTACT_FIELDS, LEAD_COLUMNS, leadView, type Contact, type LeadRow, type LeadView } from '../rows';
import { INTAKE_RESULT } from '../outputs';
import { intakeSchema, objectBody, trimStrings } from '../schemas';
import { returningOne } from '../../kernel/sql';

export type IntakeOutcome = 'CREATED' | 'MERGED' | 'DUPLICATE' | 'SUPPRESSED';
/** The answer (`{ data, outcome }`); a suppressed contact has no lead to show, and is a refusal. */
export type IntakeResult = { data: LeadView | null; outcome: IntakeOutcome };

// Serialises intakes of the same address in a workspace, so two at once cannot both create a lead.
async function lockAddresses(m: EntityManager, workspaceId: string, addresses: string[]) {
  for (const a of [...addresses].sort()) {
    await m.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 17))', [`${workspaceId}:${a}`]);
  }
}

/**
 * The ad-form intake: dedupe on normalised email or phone, refuse suppressed contacts, attribute the
 * touch, record the optional message, and qualify. Follow-up is never started here; a person does that.
 * Idempotent by a key the caller chooses: the first answer is replayed for 24 hours.
 */
export const createLead = defineOperation({
  name: 'lead.create',
  title: 'Record an inbound lead',
  description:
    'Records a person who asked to be contacted (ad-form intake): matched on email or phone against existing leads (merged, not duplicated), refused when the contact is suppressed, then qualified and scored. Follow-up is never started. Send the same idempotency_key to retry safely.',
  returns:
    '{ data: lead, outcome: CREATED | MERGED | DUPLICATE }; a suppressed contact is refused (suppressed) and nothing is stored.',
  requirement: LEADS_WRITE,
  reach: 'workspace',
  changes: true,
  destructive: false,
  idempotent: true,
  gated: false,
  input: intakeSchema.shape({
    idempotency_key: describe(
      yup
        .string()
        .required('idempotency_key is required')
        .max(255, 'idempotency_key must be 1 to 255 visible ASCII characters')
        .matches(/^[\x21-\x7e]+$/, 'idempotency_key must be 1 to 255 visible ASCII characters'),
      'Any unique string per lead you record (a UUID, or your own form-submission id); a retry with the same key and body returns the first answer.',
    ),
  }),
  output: INTAKE_RESULT,
  doors: {
    rest: {
      method: 'post',
      path: '/leads',
      operationId: 'createLead',
      status: (out: IntakeResult) => (out.outcome === 'CREATED' ? 201 : 200),
      answers: {
        201: 'A new lead was created.',
        409: '`suppressed`: the contact is suppressed and nothing was stored; or `conflict`: a request with this Idempotency-Key is still running.',
      },
    },
    mcp: true,
  },
  prepare: (raw) => trimStrings(objectBody(raw)),
  idempotency: {
    field: 'idempotency_key',
    // A suppressed intake is remembered too (its outcome, never its contact), so a retry gets the same refusal.
    remember: () => true,
  },
  // The touch of a suppressed contact commits (an existing lead learns it was touched), yet the caller is refused.
  refusal: (out: IntakeResult) => (out.outcome === 'SUPPRESSED' ? suppressedError() : undefined),
  summary: (i) => `Record a lead from ${i.source} (${i.email ?? i.phone ?? 'no contact'})`,
  run: async (ctx, input): Promise<IntakeResult> => {
    const contactIn: Contact = {};
    for (const f of CONTACT_FIELDS) if (input[f] !== undefined) contactIn[f] = input[f];
    return recordIntake(ctx, {
      contact: contactIn,
      source: input.source,
      sourceType: 'ad_form',
      message: input.message || undefined,
      answers: input.answers ?? {},
      consentAt: new Date(input.consent.at),
    });
  },
});

type ParsedIntake = {
  contact: Contact;
  source: string;
  sourceType: string;
  message?: string;
  answers: Record<string, unknown>;
  consentAt: Date;
};

async function recordIntake(ctx: OperationContext, intake: ParsedIntake): Promise<IntakeResult> {
  const { m } = ctx;
  const workspaceId = ctx.workspaceId!;
  const contact = normaliseContact(intake.contact, await workspaceTimezone(m, workspaceId));
  const addresses = [contact.email, contact.phone].filter((a): a is string => !!a);
  await lockAddresses(m, workspaceId, addresses);

  const matches = await m.query<LeadRow[]>(
    `SELECT ${LEAD_COLUMNS} FROM leads
      WHERE workspace_id = $1 AND archived_at IS NULL AND (email = $2 OR phone = $3)
      ORDER BY (email = $2) IS TRUE DESC, created_at LIMIT 2 FOR UPDATE`,
    [workspaceId, contact.email ?? null, contact.phone ?? null],
  );
  const match = matches[0];
  const suppressed = await m.query<{ id: string }[]>(
    `SELECT id FROM suppressions WHERE workspace_id = $1 AND address = ANY($2::text[]) LIMIT 1`,
    [workspaceId, addresses],
  );
  const touch = async (leadId: string, outcome: IntakeOutcome, changed: string[]) => {
    // A suppressed submission leaves its outcome only: none of what was submitted is kept or sent.
    const kept = outcome === 'SUPPRESSED' ? {} : contact;
    const [{ id }] = await m.query<[{ id: string }]>(
      `INSERT INTO touches (workspace_id, lead_id, source_type, source, outcome, contact)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [workspaceId, leadId, intake.sourceType, intake.source, outcome, JSON.stringify(kept)],
    );
    await ctx.emit(
      workspaceId,
      'lead.touched',
      { type: 'lead', id: leadId },
      {
        lead_id: leadId,
        touch_id: id,
        // The spec's outcomes for this event are MERGED and SUPPRESSED; a duplicate merged nothing new.
        outcome: outcome === 'SUPPRESSED' ? 'SUPPRESSED' : 'MERGED',
        changed_fields: changed,
        source_type: intake.sourceType,
        source: intake.source,
        ...kept,
      },
    );
  };
  const audit = (leadId: string | null, outcome: IntakeOutcome) =>
    ctx.audit(workspaceId, { lead_id: leadId, outcome, source: intake.source });

  if (suppressed.length > 0) {
    // Nothing about the submission is stored; an existing lead only learns that it was touched.
    if (match) await touch(match.id, 'SUPPRESSED', []);
    audit(match?.id ?? null, 'SUPPRESSED');
    return { data: null, outcome: 'SUPPRESSED' };
  }

  let lead: LeadRow;
  let outcome: IntakeOutcome;
  if (match) {
    // Fill gaps only: details the lead already has are kept, and an address owned by another lead is not taken.
    const other = matches[1];
    const changes: Contact = {};
    for (const f of CONTACT_FIELDS) {
      const value = contact[f];
      if (!value || match[f] !== null) continue;
      if ((f === 'email' || f === 'phone') && other && other[f] === value) continue;
      changes[f] = value;
    }
    const newAnswers = Object.fromEntries(
      Object.entries(intake.answers).filter(([k]) => !(k in match.answers)),
    );
    const changed = [...Object.keys(changes), ...(Object.keys(newAnswers).length ? ['answers'] : [])];
    outcome = changed.length > 0 ? 'MERGED' : 'DUPLICATE';
    const fields = Object.keys(changes) as (keyof Contact)[];
    lead = await returningOne<LeadRow>(
      m,
      `UPDATE leads SET ${fields.map((f, i) => `${f} = $${i + 3}`).join(', ')}${fields.length ? ',' : ''}
         answers = answers || $2::jsonb, consent_at = coalesce(consent_at, $${fields.length + 3}),
         updated_at = CASE WHEN $${fields.length + 4}::boolean THEN clock_timestamp() ELSE updated_at END
       WHERE id = $1 RETURNING ${LEAD_COLUMNS}`,
      [
        match.id,
        JSON.stringify(newAnswers),
        ...fields.map((f) => changes[f]),
        intake.consentAt,
        outcome === 'MERGED',
      ],
    );
    await touch(lead.id, outcome, changed);
  } else {
    [lead] = await m.query<[LeadRow]>(
      `INSERT INTO leads (workspace_id, first_name, last_name, email, phone, postcode, source, consent_at, answers)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${LEAD_COLUMNS}`,
      [
        workspaceId,
        contact.first_name ?? null,
        contact.last_name ?? null,
        contact.email ?? null,
        contact.phone ?? null,
        contact.postcode ?? null,
        intake.source,
        intake.consentAt,
        JSON.stringify(intake.answers),
      ],
    );
    outcome = 'CREATED';
    await m.query(
      `INSERT INTO touches (workspace_id, lead_id, source_type, source, outcome, contact) VALUES ($1, $2, $3, $4, 'CREATED', $5)`,
      [workspaceId, lead.id, intake.sourceType, intake.source, JSON.stringify(contact)],
    );
    await ctx.emit(
      workspaceId,
      'lead.created',
      { type: 'lead', id: lead.id },
      {
        lead_id: lead.id,
        ...contact,
        status: lead.status,
        source_type: intake.sourceType,
        source: intake.source,
      },
    );
  }
  if (intake.message) {
    await recordInboundMessageIn(ctx, lead, { channel: 'form', body: intake.message, isReply: false });
    lead = { ...lead, needs_attention: true };
  }
  if (outcome !== 'DUPLICATE')
    lead = await qualifyLeadIn(ctx, lead, outcome === 'CREATED' ? 'lead.created' : 'lead.touched');
  audit(lead.id, outcome);
  return { data: leadView(lead), outcome };
}

const suppressedError = () =>
  new DomainError(
    'suppressed',
    'This contact is suppressed (opted out or blocked); nothing was stored.',
    {},
    'contact is suppressed',
  );
