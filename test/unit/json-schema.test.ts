import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import * as yup from 'yup';
import {
  describe as described,
  missingDescriptions,
  toJsonSchema,
  type JsonSchema,
} from '../../domain/kernel/json-schema';
import { maxChars } from '../../domain/kernel/validate';
import { intakeSchema, leadPatchSchema } from '../../domain/leads/schemas';
import { LEAD_STATUSES } from '../../domain/leads/status-rules';

// Strict, so ajv refuses unknown keywords and formats in the produced schema; union types and a required
// name without its own property (the escape hatch's anyOf) are standard JSON Schema, only ajv's taste.
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, strictRequired: false });
addFormats(ajv);

/** Every sample must be accepted or refused alike by yup (strict, as JSON bodies are) and by the JSON Schema. */
function assertSameVerdicts(schema: yup.AnySchema, samples: unknown[]) {
  const validate = ajv.compile(toJsonSchema(schema));
  for (const sample of samples) {
    const byYup = schema.isValidSync(sample, { strict: true });
    assert.equal(validate(sample), byYup, `${JSON.stringify(sample)}: yup says ${byYup}`);
  }
}

describe('strings', () => {
  it('maps min, max and length to minLength and maxLength', () => {
    assert.deepEqual(toJsonSchema(yup.string().min(2).max(5)), {
      type: 'string',
      minLength: 2,
      maxLength: 5,
    });
    assert.deepEqual(toJsonSchema(yup.string().length(3)), { type: 'string', minLength: 3, maxLength: 3 });
  });

  it('reads required() as minLength 1, since yup refuses the empty string then', () => {
    assert.deepEqual(toJsonSchema(yup.string().required()), { type: 'string', minLength: 1 });
    assert.deepEqual(toJsonSchema(yup.string().required().min(3)), { type: 'string', minLength: 3 });
  });

  it('treats the code-point maxChars test as max', () => {
    assert.deepEqual(toJsonSchema(yup.string().test(maxChars(10, 'too long'))), {
      type: 'string',
      maxLength: 10,
    });
  });

  it('ignores custom tests JSON Schema cannot express', () => {
    const schema = yup.string().test('even', 'even length', (v) => (v ?? '').length % 2 === 0);
    assert.deepEqual(toJsonSchema(schema), { type: 'string' });
  });

  it('maps matches to pattern, letting the empty string through only with excludeEmptyString', () => {
    assert.deepEqual(toJsonSchema(yup.string().matches(/^\d+$/)), { type: 'string', pattern: '^\\d+$' });
    assert.deepEqual(toJsonSchema(yup.string().matches(/^\d+$/, { excludeEmptyString: true })), {
      type: 'string',
      pattern: '^$|^\\d+$',
    });
  });

  it('maps several matches tests to allOf, as yup applies them all', () => {
    assert.deepEqual(toJsonSchema(yup.string().matches(/a/).matches(/b/)), {
      type: 'string',
      allOf: [{ pattern: 'a' }, { pattern: 'b' }],
    });
    assertSameVerdicts(yup.string().matches(/a/).matches(/b/), ['ab', 'ba', 'a', 'b', '']);
  });

  it('leaves to yup the regexes a pattern cannot say: flagged, or invalid as Unicode regexes', () => {
    assert.deepEqual(toJsonSchema(yup.string().matches(/^abc$/i)), { type: 'string' });
    // eslint-disable-next-line no-useless-escape
    assert.deepEqual(toJsonSchema(yup.string().matches(/^a\@b$/)), { type: 'string' });
  });

  it('maps email, url and uuid to formats; yup lets the empty string through email and url', () => {
    assert.deepEqual(toJsonSchema(yup.string().uuid()), { type: 'string', format: 'uuid', maxLength: 36 });
    assert.deepEqual(toJsonSchema(yup.string().email()), {
      type: 'string',
      anyOf: [{ const: '' }, { format: 'email' }],
    });
    assert.deepEqual(toJsonSchema(yup.string().url()), {
      type: 'string',
      anyOf: [{ const: '' }, { format: 'uri' }],
    });
    assertSameVerdicts(yup.string().email(), ['a@b.example', 'not an email', '']);
  });
});

describe('numbers, booleans and dates', () => {
  it('maps min, max, moreThan, lessThan and integer', () => {
    assert.deepEqual(toJsonSchema(yup.number().min(1).max(9)), { type: 'number', minimum: 1, maximum: 9 });
    assert.deepEqual(toJsonSchema(yup.number().moreThan(0).lessThan(1)), {
      type: 'number',
      exclusiveMinimum: 0,
      exclusiveMaximum: 1,
    });
    assert.deepEqual(toJsonSchema(yup.number().integer().positive()), {
      type: 'integer',
      exclusiveMinimum: 0,
      format: 'int64',
    });
    // int32 only when both bounds fit in 32 bits.
    assert.equal(toJsonSchema(yup.number().integer().min(1).max(100)).format, 'int32');
    assert.equal(
      toJsonSchema(
        yup
          .number()
          .integer()
          .min(0)
          .max(2 ** 31),
      ).format,
      'int64',
    );
  });

  it('maps boolean and date', () => {
    assert.deepEqual(toJsonSchema(yup.boolean()), { type: 'boolean' });
    assert.deepEqual(toJsonSchema(yup.date()), { type: 'string', format: 'date-time' });
  });
});

describe('mixed, oneOf and nullable', () => {
  it('gives mixed every type but null, and null too when nullable, one anyOf branch each', () => {
    const types = ['string', 'number', 'boolean', 'object', 'array'];
    assert.deepEqual(toJsonSchema(yup.mixed()), { anyOf: types.map((type) => ({ type })) });
    assert.deepEqual(toJsonSchema(yup.mixed().nullable()), {
      anyOf: [...types, 'null'].map((type) => ({ type })),
    });
    assertSameVerdicts(yup.mixed(), [null, 1, 'a', true, {}, []]);
    assertSameVerdicts(yup.mixed().nullable(), [null, 1, 'a', true, {}, []]);
  });

  it('derives the type of mixed from its values when they share one', () => {
    assert.deepEqual(toJsonSchema(yup.mixed().oneOf(['a', 'b'])), { type: 'string', enum: ['a', 'b'] });
    assert.deepEqual(toJsonSchema(yup.mixed().oneOf([1, 2])), { type: 'number', enum: [1, 2] });
    assert.deepEqual(toJsonSchema(yup.mixed().oneOf(['a', 1])), { enum: ['a', 1] });
  });

  it('maps oneOf to enum, a single value to const, and drops absent values', () => {
    assert.deepEqual(toJsonSchema(yup.string().oneOf(['a', 'b', undefined])), {
      type: 'string',
      enum: ['a', 'b'],
    });
    assert.deepEqual(toJsonSchema(yup.boolean().oneOf([true])), { type: 'boolean', const: true });
  });

  it('adds a null branch beside the typed one when nullable, never a type union', () => {
    assert.deepEqual(toJsonSchema(yup.string().nullable()), {
      anyOf: [{ type: 'string' }, { type: 'null' }],
    });
    assert.deepEqual(toJsonSchema(described(yup.string().max(5).oneOf(['a', 'b']).nullable(), 'A or B.')), {
      description: 'A or B.',
      anyOf: [{ type: 'string', maxLength: 5, enum: ['a', 'b'] }, { type: 'null' }],
    });
    assert.deepEqual(toJsonSchema(yup.string().oneOf(['a']).nullable()), {
      anyOf: [{ type: 'string', const: 'a' }, { type: 'null' }],
    });
    assert.deepEqual(toJsonSchema(yup.mixed().oneOf(['a', 1]).nullable()), {
      anyOf: [{ enum: ['a', 1] }, { type: 'null' }],
    });
    assertSameVerdicts(yup.mixed().oneOf(['a', 1]).nullable(), ['a', 1, null, 'b']);
    assertSameVerdicts(yup.string().oneOf(['a', 'b']).nullable(), ['a', 'c', null, 1]);
    assertSameVerdicts(yup.string().oneOf(['a', 'b', null as unknown as string]), ['a', null]);
  });

  it('maps notOneOf to not enum', () => {
    assert.deepEqual(toJsonSchema(yup.string().notOneOf(['x'])), { type: 'string', not: { enum: ['x'] } });
  });
});

describe('objects and arrays', () => {
  it('lists properties, and requires the fields marked required() or defined()', () => {
    const schema = yup.object({
      a: yup.string().required(),
      b: yup.number().defined(),
      c: yup.boolean(),
    });
    assert.deepEqual(toJsonSchema(schema), {
      type: 'object',
      properties: {
        a: { type: 'string', minLength: 1 },
        b: { type: 'number' },
        c: { type: 'boolean' },
      },
      required: ['a', 'b'],
    });
  });

  it('omits required when nothing is, and closes the object only when noUnknown refuses', () => {
    assert.deepEqual(toJsonSchema(yup.object({ a: yup.string() }).noUnknown()), {
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: false,
    });
    assert.deepEqual(toJsonSchema(yup.object({ a: yup.string() }).noUnknown().unknown(true)), {
      type: 'object',
      properties: { a: { type: 'string' } },
    });
  });

  it('converts nested objects and array items', () => {
    const schema = yup.object({
      tags: yup.array(yup.string().max(20)).min(1).max(5),
      owner: yup.object({ id: yup.string().uuid().required() }).nullable(),
    });
    assert.deepEqual(toJsonSchema(schema), {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string', maxLength: 20 }, minItems: 1, maxItems: 5 },
        owner: {
          anyOf: [
            {
              type: 'object',
              properties: { id: { type: 'string', format: 'uuid', maxLength: 36, minLength: 1 } },
              required: ['id'],
            },
            { type: 'null' },
          ],
        },
      },
    });
  });

  it('drops omitted top-level properties, from required too', () => {
    const schema = yup.object({ id: yup.string().required(), name: yup.string().required() });
    assert.deepEqual(toJsonSchema(schema, { omit: ['id'] }), {
      type: 'object',
      properties: { name: { type: 'string', minLength: 1 } },
      required: ['name'],
    });
    assert.deepEqual(toJsonSchema(schema, { omit: ['id', 'name'] }), { type: 'object', properties: {} });
  });
});

describe('annotations and the escape hatch', () => {
  it('maps the default, unless it is a function', () => {
    assert.deepEqual(toJsonSchema(yup.number().default(25)), { type: 'number', default: 25 });
    assert.deepEqual(toJsonSchema(yup.string().default(() => 'now')), { type: 'string' });
  });

  it('maps meta.description to description and label to title', () => {
    assert.deepEqual(toJsonSchema(described(yup.string().label('Name'), 'Who they are.')), {
      title: 'Name',
      description: 'Who they are.',
      type: 'string',
    });
  });

  it('merges meta.jsonSchema last, for rules only a custom test can express', () => {
    const schema = yup
      .object({ email: yup.string(), phone: yup.string() })
      .test('contact', 'email or phone', (v) => Boolean(v.email || v.phone))
      .meta({ jsonSchema: { anyOf: [{ required: ['email'] }, { required: ['phone'] }] } });
    assert.deepEqual(toJsonSchema(schema).anyOf, [{ required: ['email'] }, { required: ['phone'] }]);
    assertSameVerdicts(schema, [{ email: 'a' }, { phone: '1' }, {}]);
  });

  it("puts the escape hatch's rules in the typed branch of a nullable field, and extensions beside it", () => {
    const schema = yup
      .string()
      .nullable()
      .meta({ jsonSchema: { format: 'date-time', 'x-mcp-header': 'When' } });
    assert.deepEqual(toJsonSchema(schema), {
      anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }],
      'x-mcp-header': 'When',
    });
  });

  it('describe() keeps other meta keys and leaves the original schema as it was', () => {
    const base = yup.string().meta({ jsonSchema: { format: 'date-time' } });
    const withText = described(base, 'When.');
    assert.deepEqual(withText.describe().meta, { jsonSchema: { format: 'date-time' }, description: 'When.' });
    assert.deepEqual(base.describe().meta, { jsonSchema: { format: 'date-time' } });
    assert.equal(described(withText, 'Again.').describe().meta?.description, 'Again.');
  });

  it('lists the fields without a description, into nested objects and array items', () => {
    const schema = yup.object({
      a: described(yup.string(), 'A.'),
      b: yup.string(),
      c: described(yup.object({ d: yup.number(), e: described(yup.number(), 'E.') }), 'C.'),
      f: yup.array(yup.object({ g: yup.string() })),
    });
    assert.deepEqual(missingDescriptions(schema), ['b', 'c.d', 'f', 'f[].g']);
  });
});

describe('unsupported schemas', () => {
  it('throws naming the path of a lazy, ref, tuple or conditional schema', () => {
    const cases: [yup.AnySchema, RegExp][] = [
      [yup.object({ a: yup.object({ b: yup.lazy(() => yup.string()) }) }), /a\.b is a lazy schema/],
      [yup.object({ a: yup.string(), b: yup.ref('a') }), /b is a ref schema/],
      [yup.object({ list: yup.array(yup.tuple([yup.string()])) }), /list\[\] is a tuple schema/],
      [yup.object({ n: yup.number().min(yup.ref('m')) }), /n has a min limit given by a ref/],
      [yup.object({ s: yup.string().when('t', { is: 'x', then: (s) => s.required() }) }), /s is conditional/],
    ];
    for (const [schema, message] of cases) assert.throws(() => toJsonSchema(schema), message);
  });
});

describe('round trip: yup and the JSON Schema agree', () => {
  it('on a schema using most rules', () => {
    const schema = yup
      .object({
        name: yup.string().required().test(maxChars(5, 'too long')),
        code: yup.string().matches(/^[A-Z]{2}$/, { excludeEmptyString: true }),
        kind: yup.string().oneOf(['a', 'b']).nullable(),
        count: yup.number().integer().min(1).lessThan(10),
        tags: yup.array(yup.string().min(1)).max(2),
        flag: yup.boolean().defined(),
      })
      .noUnknown();
    assertSameVerdicts(schema, [
      { name: 'Ann', flag: true },
      { name: 'Ann', flag: true, code: '', kind: null, count: 9, tags: ['x'] },
      { name: 'Ann', flag: true, code: 'GB', kind: 'b', count: 1, tags: [] },
      { name: '😀😀😀😀😀', flag: false },
      { name: 'Ann' },
      { name: '', flag: true },
      { name: 'Annabel', flag: true },
      { name: 'Ann', flag: true, code: 'gb' },
      { name: 'Ann', flag: true, kind: 'c' },
      { name: 'Ann', flag: true, count: 10 },
      { name: 'Ann', flag: true, count: 1.5 },
      { name: 'Ann', flag: true, count: '2' },
      { name: 'Ann', flag: true, tags: ['a', 'b', 'c'] },
      { name: 'Ann', flag: true, tags: [''] },
      { name: 'Ann', flag: true, extra: 1 },
      { name: 'Ann', flag: null },
      null,
      [],
    ]);
  });

  it('on the lead PATCH body', () => {
    assertSameVerdicts(leadPatchSchema, [
      { status: 'WON' },
      { first_name: null, phone: '' },
      { note: 'Called back.', email: 'a@b.example' },
      {},
      { status: 'DONE' },
      { note: '' },
      { phone: '12' },
      { email: 'nope' },
      { first_name: 'x'.repeat(101) },
      { id: 'x' },
    ]);
  });

  it('on the intake body', () => {
    const consent = { given: true, at: '2024-05-01T10:00:00Z' };
    assertSameVerdicts(intakeSchema, [
      { source: 'form', consent, email: 'a@b.example' },
      { source: 'form', consent, phone: '+44 20 7946 0000', answers: { budget: 5000 } },
      { source: 'form', consent },
      { source: 'form', consent: { ...consent, given: false }, email: 'a@b.example' },
      { source: 'form', consent: { ...consent, extra: 1 }, email: 'a@b.example' },
      { source: '', consent, email: 'a@b.example' },
      { consent, email: 'a@b.example' },
      { source: 'form', email: 'a@b.example' },
      { source: 'form', consent, email: 'a@b.example', extra: 1 },
    ]);
  });
});

describe("the repository's lead schemas", () => {
  const maxLengths = (schema: yup.AnyObjectSchema) =>
    Object.fromEntries(
      Object.entries(schema.describe().fields).flatMap(([key, field]) => {
        const max = 'tests' in field ? field.tests.find((t) => t.name === 'max')?.params?.max : undefined;
        return typeof max === 'number' ? [[key, max]] : [];
      }),
    );
  const properties = (json: JsonSchema) => json.properties as Record<string, JsonSchema>;
  /** A nullable field's limits are on its typed branch (the other is `{ type: 'null' }`). */
  const valueOf = (field: JsonSchema | undefined) =>
    (field?.anyOf as JsonSchema[] | undefined)?.find((b) => b.type !== 'null') ?? field;

  for (const [name, schema] of [
    ['intake', intakeSchema],
    ['PATCH', leadPatchSchema],
  ] as const) {
    it(`${name}: same fields, closed, with the maxChars limits as maxLength`, () => {
      const json = toJsonSchema(schema);
      assert.equal(json.type, 'object');
      assert.equal(json.additionalProperties, false);
      assert.deepEqual(Object.keys(properties(json)), Object.keys(schema.fields));
      const limits = maxLengths(schema);
      assert.ok(Object.keys(limits).length > 0);
      for (const [key, max] of Object.entries(limits))
        assert.equal(valueOf(properties(json)[key])?.maxLength, max, key);
    });
  }

  it('intake: source and consent are required, consent is closed', () => {
    const json = toJsonSchema(intakeSchema);
    assert.deepEqual(json.required, ['source', 'consent']);
    const consent = properties(json).consent!;
    assert.equal(consent.additionalProperties, false);
    assert.deepEqual(properties(consent).given, {
      ...properties(consent).given,
      type: 'boolean',
      const: true,
    });
  });

  it('PATCH: status is an enum of the lead statuses; nothing is required', () => {
    const json = toJsonSchema(leadPatchSchema);
    assert.deepEqual(properties(json).status?.enum, [...LEAD_STATUSES]);
    assert.equal(json.required, undefined);
  });
});
