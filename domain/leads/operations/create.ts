import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { idempotencyKeyField } from '../../kernel/idempotency';
import { recordIntake, suppressedError, type IntakeResult } from '../intake';
import { INTAKE_RESULT, CONTACT_FIELDS, type Contact } from '../views';
import { LEADS_WRITE } from '../requirements';
import { intakeSchema, objectBody, trimStrings } from '../schemas';
import { AREA } from '../area';

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
  ...WRITE,
  idempotent: true,
  input: intakeSchema.shape({
    idempotency_key: describe(
      idempotencyKeyField('idempotency_key'),
      'Any unique string per lead you record (a UUID, or your own form-submission id); a retry with the same key and body returns the first answer.',
    ),
  }),
  output: INTAKE_RESULT,
  doors: {
    rest: {
      method: 'post',
      path: '/leads',
      operationId: 'createLead',
      area: AREA,
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
