import * as yup from 'yup';
import { DomainError } from '../kernel/errors';
import { describe } from '../kernel/json-schema';
import { EMAIL_PATTERN, maxChars, pageSize } from '../kernel/validate';
import { PHONE_PATTERN } from './normalise';
import { LEAD_STATUSES, type LeadStatus } from './status-rules';

const MAX_NOTE_LENGTH = 2000;
/** Which ad form a lead came from; a prospect list's name (the other source) is bounded the same. */
export const MAX_SOURCE_LENGTH = 200;
/** Longest contact details, in characters; the document says the same (maxLength). */
const MAX = { name: 100, email: 254, phone: 40, postcode: 20 };
/** An ISO 8601 timestamp with nanoseconds and an offset is 35 characters. */
const MAX_TIMESTAMP = 40;

const name = (field: string, what: string) =>
  describe(
    yup
      .string()
      .typeError(`${field} must be a string or null`)
      .test(maxChars(MAX.name, `${field} must be at most ${MAX.name} characters`))
      .nullable(),
    what,
  );

/** A JSON body must be an object; `null`, arrays and scalars are refused naming the body. */
export function objectBody(input: unknown): Record<string, unknown> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new DomainError('invalid_request', 'The body must be a JSON object.', { field: 'body' });
  }
  return input as Record<string, unknown>;
}

/** Trims top-level strings before strict validation (strict refuses coercion but also skips transforms). */
export const trimStrings = (input: unknown): unknown =>
  input && typeof input === 'object' && !Array.isArray(input)
    ? Object.fromEntries(Object.entries(input).map(([k, v]) => [k, typeof v === 'string' ? v.trim() : v]))
    : input;

/** Contact details, as both intake and PATCH accept them. `null` clears a detail (PATCH only). */
export const contactFields = {
  first_name: name('first_name', 'First name.'),
  last_name: name('last_name', 'Last name.'),
  email: describe(
    yup
      .string()
      .typeError('email must be a string or null')
      .test(maxChars(MAX.email, `email must be at most ${MAX.email} characters`))
      .matches(EMAIL_PATTERN, 'email must be an email address')
      .nullable(),
    'Email address; stored trimmed and lower-cased. Leads are matched on it.',
  ),
  phone: describe(
    yup
      .string()
      .typeError('phone must be a string or null')
      .test(maxChars(MAX.phone, `phone must be at most ${MAX.phone} characters`))
      .matches(PHONE_PATTERN, {
        message: 'phone must be a phone number: 3 to 20 digits, optionally with a leading +',
        excludeEmptyString: true,
      })
      .nullable(),
    "Phone number; national formats are read with the workspace's country and stored as E.164. Leads are matched on it.",
  ),
  postcode: describe(
    yup
      .string()
      .typeError('postcode must be a string or null')
      .test(maxChars(MAX.postcode, `postcode must be at most ${MAX.postcode} characters`))
      .nullable(),
    'Postcode.',
  ),
};

/** A lead named by id. */
export const leadIdField = describe(
  // `${path}`: the REST door names it after its path parameter (`id`).
  yup
    .string()
    .typeError('${path} must be a UUID')
    .uuid('${path} must be a UUID')
    .required('${path} is required')
    // The assistant door mirrors it into `Mcp-Param-Lead-Id` (SEP-2243), so a gateway can route or
    // trace by lead without reading bodies; an id is no contact detail.
    .meta({ jsonSchema: { 'x-mcp-header': 'Lead-Id' } }),
  'The lead id (UUID).',
);

/** The input of a call that names only a lead. */
export const byLeadId = yup
  .object({ leadId: leadIdField })
  .noUnknown('${unknown} is not a parameter of this call');

export const statusField = describe(
  yup
    .string()
    .typeError('status must be a string')
    .oneOf([...LEAD_STATUSES], `status must be one of ${LEAD_STATUSES.join(', ')}`),
  'The new status. Allowed moves: NEW→CONTACTED/RESPONDED/QUALIFIED/BOOKED/LOST; CONTACTED→RESPONDED/QUALIFIED/BOOKED/LOST; RESPONDED→CONTACTED/QUALIFIED/BOOKED/LOST; QUALIFIED→CONTACTED/BOOKED/WON/LOST; BOOKED→QUALIFIED/WON/LOST; WON→LOST; LOST→NEW/CONTACTED. WON or LOST stops follow-up.',
);

export const noteField = describe(
  yup
    .string()
    .typeError('note must be a string')
    .min(1, 'note must not be empty')
    .test(maxChars(MAX_NOTE_LENGTH, `note must be at most ${MAX_NOTE_LENGTH} characters`)),
  `A note for the lead's record, 1 to ${MAX_NOTE_LENGTH} characters.`,
);

const strictObject = <T extends yup.ObjectShape>(shape: T, what: string) =>
  yup
    .object(shape)
    .strict(true)
    .noUnknown(true, (p: { unknown: string }) => `${p.unknown} is not a ${what} field`)
    .typeError(`the body must be a JSON object`);

const patchFields = { ...contactFields, status: statusField, note: noteField };

/** A lead edit names at least one field to change; the lead it edits is no change. */
const namesAChange = (v: Record<string, unknown> | undefined) =>
  Object.keys(v ?? {}).some((k) => k !== 'leadId');

/** PATCH /leads/{id}: only these fields; anything else refuses the whole request. */
export const leadPatchSchema = strictObject(patchFields, 'lead')
  .meta({ jsonSchema: { minProperties: 1 } })
  .test('not-empty', 'the body must name at least one field to change', namesAChange);

/** The lead edit's input: the lead (the REST door takes it from the path) and the PATCH body's fields. */
export const leadEditInput = strictObject({ leadId: leadIdField, ...patchFields }, 'lead')
  .meta({ jsonSchema: { minProperties: 1 } })
  .test('not-empty', 'the body must name at least one field to change', namesAChange);

/** POST /leads: the ad-form intake (decisions.md). */
export const intakeSchema = strictObject(
  {
    ...contactFields,
    source: describe(
      yup
        .string()
        .typeError('source must be a string')
        .min(1, 'source must not be empty')
        .test(maxChars(MAX_SOURCE_LENGTH, `source must be at most ${MAX_SOURCE_LENGTH} characters`))
        .required('source is required'),
      'Which ad form (or other source) the lead came from.',
    ),
    message: describe(
      yup
        .string()
        .typeError('message must be a string')
        .test(maxChars(10_000, 'message must be at most 10000 characters')),
      "The person's first message, recorded as an inbound message.",
    ),
    answers: describe(
      yup
        .object()
        .typeError('answers must be an object')
        .test('answers', 'answers must hold at most 50 answers of string, number or boolean', (v) => {
          if (v === undefined) return true;
          const entries = Object.entries(v);
          return (
            entries.length <= 50 &&
            entries.every(
              ([k, x]) =>
                k.length <= 100 &&
                (['number', 'boolean'].includes(typeof x) || (typeof x === 'string' && x.length <= 1000)),
            )
          );
        })
        .meta({
          jsonSchema: {
            maxProperties: 50,
            propertyNames: { maxLength: 100 },
            additionalProperties: {
              anyOf: [{ type: 'string', maxLength: 1000 }, { type: 'number' }, { type: 'boolean' }],
            },
          },
        }),
      'Qualification answers, for example {"timeline": "now", "budget": 5000}: at most 50, each a string, number or boolean.',
    ),
    consent: describe(
      yup
        .object({
          given: describe(
            yup
              .boolean()
              .typeError('consent.given must be true')
              .oneOf([true], 'consent.given must be true: the person must have asked to be contacted')
              .required('consent.given is required'),
            'Always true: the person asked to be contacted.',
          ),
          at: describe(
            yup
              .string()
              .typeError('consent.at must be an ISO 8601 timestamp')
              .required('consent.at is required')
              .test(maxChars(MAX_TIMESTAMP, `consent.at must be at most ${MAX_TIMESTAMP} characters`))
              .test(
                'iso',
                'consent.at must be an ISO 8601 timestamp',
                (v) =>
                  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(v) &&
                  !Number.isNaN(Date.parse(v)),
              )
              .meta({ jsonSchema: { format: 'date-time' } }),
            'When they asked (ISO 8601).',
          ),
        })
        .strict(true)
        .noUnknown(true, (p: { unknown: string }) => `consent.${p.unknown} is not a consent field`)
        .default(undefined)
        .typeError('consent must be an object')
        .required('consent is required: { "given": true, "at": "<ISO 8601>" }'),
      'The warm-relationship precondition: { "given": true, "at": "<ISO 8601>" }.',
    ),
  },
  'lead intake',
)
  .meta({
    jsonSchema: {
      // At least one way to reach the person.
      anyOf: [
        { required: ['email'], properties: { email: { type: 'string', maxLength: MAX.email } } },
        {
          required: ['phone'],
          properties: { phone: { type: 'string', minLength: 3, maxLength: MAX.phone } },
        },
      ],
    },
  })
  .test('contact', 'email or phone is required', function (v) {
    return v?.email || v?.phone
      ? true
      : this.createError({ path: 'email', message: 'email or phone is required' });
  });

/** `lead.search` (GET /leads): JSON types; the REST door reads its query string into them. */
export const searchParamsSchema = yup
  .object({
    query: describe(
      yup
        .string()
        .typeError('query must be a string')
        .test(maxChars(200, 'query must be at most 200 characters')),
      'Matches name, email or phone, partially and case-insensitively; a whole email address matches exactly.',
    ),
    status: describe(
      yup.mixed<LeadStatus>().oneOf([...LEAD_STATUSES], `status must be one of ${LEAD_STATUSES.join(', ')}`),
      'Only leads with this status.',
    ),
    needs_attention: describe(
      yup.boolean().typeError('needs_attention must be true or false'),
      'true: only leads with an unanswered message, an open handover or a meeting to confirm; false: only the others.',
    ),
    limit: describe(pageSize(50), 'How many leads, 1 to 50 (default 25).'),
  })
  .strict(true)
  .noUnknown(true, (p: { unknown: string }) => `${p.unknown} is not a search parameter`);
