import * as yup from 'yup';
import { describe } from '../kernel/json-schema';
import { INTERVALS, type Interval } from './entities';
import { priced } from './documents';

/** A record's id, named after the flag that carries it (`quote`, `invoice`, `opportunity`). */
export const idField = (name: string, what: string) =>
  describe(
    yup
      .string()
      .typeError(`${name} must be a UUID`)
      .trim()
      .uuid(`${name} must be a UUID`)
      .required(`${name} is required`),
    what,
  );

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar day, YYYY-MM-DD, that exists. */
export const dayField = (name: string, what: string) =>
  describe(
    yup
      .string()
      .typeError(`${name} must be a date, YYYY-MM-DD`)
      .trim()
      .test('day', `${name} must be a date, YYYY-MM-DD`, (v) => {
        if (v === undefined) return true;
        if (!DAY.test(v)) return false;
        return new Date(`${v}T00:00:00Z`).toISOString().slice(0, 10) === v;
      }),
    what,
  );

const line = yup
  .object({
    description: describe(
      yup
        .string()
        .typeError('a line description must be text')
        .trim()
        .required('every line needs a description')
        .max(500, 'a line description is at most 500 characters'),
      'What the line is for.',
    ),
    quantity: describe(
      yup
        .number()
        .typeError('quantity must be a number')
        .required('every line needs a quantity')
        .moreThan(0, 'quantity must be more than 0')
        .max(1_000_000, 'quantity must be at most 1,000,000'),
      'How many (may have decimals, such as 1.5 hours).',
    ),
    unit_amount: describe(
      yup
        .number()
        .typeError('unit_amount must be a whole number of minor units (cents)')
        .required('every line needs a unit_amount')
        .integer('unit_amount must be a whole number of minor units (cents)')
        .min(-100_000_000_000, 'unit_amount is out of range')
        .max(100_000_000_000, 'unit_amount is out of range'),
      'The price of one, in minor units (cents); negative for a discount line.',
    ),
  })
  .noUnknown('${unknown} is not a field of a line');

/** A quote's lines: at least one, and a total that is not negative. */
export const linesField = describe(
  yup
    .array(line)
    .typeError('lines must be a JSON array of {description, quantity, unit_amount}')
    .min(1, 'a quote needs at least one line')
    .max(100, 'a quote has at most 100 lines')
    .test('total', 'the total of the lines must not be negative', (ls) => !ls || priced(ls).total >= 0),
  'The lines, as JSON: [{"description": "Setup", "quantity": 1, "unit_amount": 50000}]. Amounts in minor units.',
);

export const currencyField = describe(
  yup
    .string()
    .typeError('currency must be an ISO 4217 code, such as EUR')
    .trim()
    .uppercase()
    .matches(/^[A-Z]{3}$/, 'currency must be an ISO 4217 code, such as EUR')
    .test('known', 'currency must be an ISO 4217 code, such as EUR', (v) => {
      if (v === undefined) return true;
      try {
        new Intl.NumberFormat('en', { style: 'currency', currency: v });
        return true;
      } catch {
        return false;
      }
    }),
  'ISO 4217 code, such as EUR.',
);

export const intervalField = describe(
  yup
    .string()
    .typeError('interval must be month or year')
    .oneOf([...INTERVALS, 'none'], 'interval must be month, year or none'),
  'For a recurring price: month or year (none: a one-off).',
);

/** A JSON flag as the CLI passes it: parsed when it is JSON, else left for validation to refuse. */
const jsonFlag = (value: string | undefined): unknown => {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
};

/** The interval an input names: `none` is a one-off (null); absent is unchanged. */
export const intervalOf = (v: string | undefined): Interval | null | undefined =>
  v === undefined ? undefined : v === 'none' ? null : (v as Interval);

/** A quote's fields as the admin CLI's flags carry them (create and revise). */
export const quoteFlags = (f: Record<string, string>) => ({
  lines: jsonFlag(f.lines),
  currency: f.currency,
  valid_until: f['valid-until'],
  interval: f.interval,
});

/** How many a sales list answers: 1 to 100, 25 by default. */
export const listLimit = describe(
  yup
    .number()
    .typeError('limit must be a number')
    .integer()
    .min(1)
    .max(100, 'limit is at most 100')
    .default(25),
  'At most this many (default 25, at most 100).',
);
