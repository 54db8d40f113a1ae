import type { DataSource, EntityManager } from 'typeorm';
import { returningOne } from '../sql';
import { authorize, type Actor } from '../actor';
import { operationAudit, writeAudit } from '../audit';
import { DomainError } from '../errors';
import { emitEvent } from '../events/emit';
import { normaliseContact, workspaceTimezone } from '../leads/contact-input';
import {
  CONTACT_FIELDS,
  LEAD_COLUMNS,
  leadView,
  type Contact,
  type LeadRow,
  type LeadView,
} from '../leads/lead-row';
import { LEADS_WRITE } from '../leads/requirements';
import { intakeSchema, objectBody, trimStrings } from '../leads/schemas';
import { validate } from '../validate';
import { qualifyLeadIn } from './qualify-lead';
import { recordInboundMessageIn } from './record-inbound-message';

export type IntakeOutcome = 'CREATED' | 'MERGED' | 'DUPLICATE' | 'SUPPRESSED';
export type IntakeResult = { outcome: IntakeOutcome; lead: LeadView | null };

export type Intake = {
  contact: Contact;
  source: string;
  sourceType: string;
  message?: string;
  answers: Record<string, unknown>;
  consentAt: Date;
};

/** Validates an intake body; throws invalid_request naming the field. Pure, so doors can check first. */
export function parseIntake(
  body: unknown,
  sourceType = 'ad_form',
): Omit<Intake, 'contact'> & { contact: Contact } {
  const v = validate(intakeSchema, trimStrings(objectBody(body)), { strict: true });
  const contact: Contact = {};
  for (const f of CONTACT_FIELDS) if (v[f] !== undefined) contact[f] = v[f];
  return {
    contact,
    source: v.source,
    sourceType,
    message: v.message || undefined,
    answers: v.answers ?? {},
    consentAt: new Date(v.consent.at),
  };
}

// Serialises intakes of the same address in a workspace, so two at once cannot both create a lead.
async function lockAddresses(m: EntityManager, workspaceId: string, addresses: string[]) {
  for (const a of [...addresses].sort()) {
    await m.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 17))', [`${workspaceId}:${a}`]);
  }
}

/**
 * The ad-form intake: dedupe on normalised email or phone, refuse suppressed contacts, attribute the
 * touch, record the optional message, and qualify. Follow-up is never started here; a person does that.
 * Runs in the caller's transaction (the REST door wraps it with the Idempotency-Key record).
 */
export async function createLeadFromIntakeIn(
  m: EntityManager,
  actor: Actor,
  workspaceId: string,
  /** The raw body, or an intake the door already parsed with parseIntake. */
  input: { parsed: Intake } | { body: unknown },
): Promise<IntakeResult> {
  authorize(actor, LEADS_WRITE);
  const intake = 'parsed' in input ? input.parsed : parseIntake(input.body);
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
    const [{ id }] = await m.query<[{ id: string }]>(
      `INSERT INTO touches (workspace_id, lead_id, source_type, source, outcome, contact)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [workspaceId, leadId, intake.sourceType, intake.source, outcome, JSON.stringify(contact)],
    );
    await emitEvent(
      m,
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
        ...contact,
      },
    );
  };
  const audit = (leadId: string | null, outcome: IntakeOutcome) =>
    writeAudit(
      m,
      operationAudit(actor.ctx, 'lead.intake', workspaceId, {
        lead_id: leadId,
        outcome,
        source: intake.source,
      }),
    );

  if (suppressed.length > 0) {
    // Nothing about the submission is stored; an existing lead only learns that it was touched.
    if (match) await touch(match.id, 'SUPPRESSED', []);
    await audit(match?.id ?? null, 'SUPPRESSED');
    return { outcome: 'SUPPRESSED', lead: null };
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
    await emitEvent(
      m,
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
    await recordInboundMessageIn(m, lead, { channel: 'form', body: intake.message, isReply: false });
    lead = { ...lead, needs_attention: true };
  }
  if (outcome !== 'DUPLICATE')
    lead = await qualifyLeadIn(m, lead, outcome === 'CREATED' ? 'lead.created' : 'lead.touched');
  await audit(lead.id, outcome);
  return { outcome, lead: leadView(lead) };
}

/** The intake as a whole transaction, for doors without an idempotency record of their own. */
export async function createLeadFromIntake(db: DataSource, actor: Actor, workspaceId: string, body: unknown) {
  const result = await db.transaction((m) => createLeadFromIntakeIn(m, actor, workspaceId, { body }));
  if (result.outcome === 'SUPPRESSED') throw suppressedError();
  return result;
}

export const suppressedError = () =>
  new DomainError('suppressed', 'This contact is suppressed (opted out or blocked); nothing was stored.');
