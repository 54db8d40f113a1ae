import * as yup from 'yup';
import { DomainError } from '../errors';
import { maxChars } from '../validate';
import { PHONE_PATTERN } from './normalise';
import { LEAD_STATUSES } from './status-rules';

export const MAX_NOTE_LENGTH = 2000;

const name = (field: string) =>
  yup
    .string()
    .typeError(`${field} must be a string or null`)
    .test(maxChars(100, `${field} must be at most 100 characters`))
    .nullable();

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
  first_name: name('first_name'),
  last_name: name('last_name'),
  email: yup
    .string()
    .typeError('email must be a string or null')
    .test(maxChars(254, 'email must be at most 254 characters'))
    .matches(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'email must be an email address')
    .nullable(),
  phone: yup
    .string()
    .typeError('phone must be a string or null')
    .test(maxChars(40, 'phone must be at most 40 characters'))
    .matches(PHONE_PATTERN, {
      message: 'phone must be a phone number: 3 to 20 digits, optionally with a leading +',
      excludeEmptyString: true,
    })
    .nullable(),
  postcode: yup
    .string()
    .typeError('postcode must be a string or null')
    .test(maxChars(20, 'postcode must be at most 20 characters'))
    .nullable(),
};

const strictObject = <T extends yup.ObjectShape>(shape: T, what: string) =>
  yup
    .object(shape)
    .strict(true)
    .noUnknown(true, (p: { unknown: string }) => `${p.unknown} is not a ${what} field`)
    .typeError(`the body must be a JSON object`);

/** PATCH /leads/{id}: only these fields; anything else refuses the whole request. */
export const leadPatchSchema = strictObject(
  {
    ...contactFields,
    status: yup
      .string()
      .typeError('status must be a string')
      .oneOf([...LEAD_STATUSES], `status must be one of ${LEAD_STATUSES.join(', ')}`),
    note: yup
      .string()
      .typeError('note must be a string')
      .min(1, 'note must not be empty')
      .test(maxChars(MAX_NOTE_LENGTH, `note must be at most ${MAX_NOTE_LENGTH} characters`)),
  },
  'lead',
).test(
  'not-empty',
  'the body must name at least one field to change',
  (v) => Object.keys(v ?? {}).length > 0,
);

/** POST /leads: the ad-form intake (decisions.md). */
export const intakeSchema = strictObject(
  {
    ...contactFields,
    source: yup
      .string()
      .typeError('source must be a string')
      .min(1, 'source must not be empty')
      .test(maxChars(200, 'source must be at most 200 characters'))
      .required('source is required'),
    message: yup
      .string()
      .typeError('message must be a string')
      .test(maxChars(10_000, 'message must be at most 10000 characters')),
    answers: yup
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
      }),
    consent: yup
      .object({
        given: yup
          .boolean()
          .typeError('consent.given must be true')
          .oneOf([true], 'consent.given must be true: the person must have asked to be contacted')
          .required('consent.given is required'),
        at: yup
          .string()
          .typeError('consent.at must be an ISO 8601 timestamp')
          .required('consent.at is required')
          .test(
            'iso',
            'consent.at must be an ISO 8601 timestamp',
            (v) =>
              /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(v) &&
              !Number.isNaN(Date.parse(v)),
          ),
      })
      .strict(true)
      .noUnknown(true, (p: { unknown: string }) => `consent.${p.unknown} is not a consent field`)
      .default(undefined)
      .typeError('consent must be an object')
      .required('consent is required: { "given": true, "at": "<ISO 8601>" }'),
  },
  'lead intake',
).test('contact', 'email or phone is required', function (v) {
  return v?.email || v?.phone
    ? true
    : this.createError({ path: 'email', message: 'email or phone is required' });
});
