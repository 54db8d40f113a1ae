import * as yup from 'yup';

/**
 * yup schema → JSON Schema (draft 2020-12, as OpenAPI 3.1 and MCP `inputSchema` use): the single source of
 * truth for request schemas, so the JSON Schema accepts what yup's strict validation accepts wherever JSON
 * Schema can say it. Custom tests it cannot say are left to yup; `.meta({ jsonSchema })` states them.
 */
export type JsonSchema = Record<string, unknown>;

/**
 * yup `.meta({ description })`, typed, so every field of an operation's input says what it is.
 * yup's meta() merges into a copy of the existing meta: other keys survive and `schema` is left unchanged.
 */
export const describe = <S extends yup.AnySchema>(schema: S, description: string): S =>
  schema.meta({ description });

export function toJsonSchema(schema: yup.AnySchema, opts: { omit?: string[] } = {}): JsonSchema {
  const result = convert(asSchema(schema, ''), '');
  const omit = new Set(opts.omit ?? []);
  if (omit.size === 0 || !isRecord(result.properties)) return result;
  const { properties, required, ...rest } = result;
  const kept = Array.isArray(required) ? required.filter((k) => !omit.has(String(k))) : [];
  return {
    ...rest,
    properties: Object.fromEntries(Object.entries(properties).filter(([k]) => !omit.has(k))),
    ...(kept.length > 0 ? { required: kept } : {}),
  };
}

/** Dotted paths (`a.b`, `list[].c`) of the object fields that lack a `meta.description`. */
export function missingDescriptions(schema: yup.AnySchema): string[] {
  return missing(schema.describe(), '');
}

function missing(d: yup.SchemaFieldDescription, path: string): string[] {
  if ('fields' in d) {
    return Object.entries(d.fields).flatMap(([key, field]) => {
      const fieldPath = path ? `${path}.${key}` : key;
      const text: unknown = 'meta' in field ? field.meta?.description : undefined;
      const own = typeof text === 'string' && text.trim() !== '' ? [] : [fieldPath];
      return [...own, ...missing(field, fieldPath)];
    });
  }
  if ('innerType' in d && d.innerType && !Array.isArray(d.innerType))
    return missing(d.innerType, `${path}[]`);
  return [];
}

// yup's mixed() takes anything but null (unless nullable).
const ANY_BUT_NULL = ['string', 'number', 'boolean', 'object', 'array'];

function convert(schema: yup.AnySchema, path: string): JsonSchema {
  // A `.when()` schema is only known per value; describing its base would be wrong either way.
  if ((schema as unknown as { conditions?: unknown[] }).conditions?.length) {
    throw new Error(
      `toJsonSchema: ${at(path)} is conditional (.when), which JSON Schema generation does not support`,
    );
  }
  const d = schema.describe();
  // describe() keeps only the first test of each name and drops excludeEmptyString; the tests themselves keep both.
  const tests = schema.tests.flatMap((t) => (t.OPTIONS ? [t.OPTIONS] : []));
  // notOneOf([null]) refuses null even on a nullable schema.
  const nullable = d.nullable && !d.notOneOf.includes(null);
  const [types, rules] = typeAndRules(schema, d, tests, path);
  const description: unknown = d.meta?.description;
  const def: unknown = schema.spec.default;
  const extra: unknown = d.meta?.jsonSchema;
  // Extensions (`x-mcp-header`) annotate the field, so they stay beside its description; rules describe a value.
  const [marks, extraRules] = partition(isRecord(extra) ? extra : {}, (key) => key.startsWith('x-'));
  const annotations: JsonSchema = {
    ...(d.label ? { title: d.label } : {}),
    ...(typeof description === 'string' ? { description } : {}),
  };
  const trailer: JsonSchema = {
    ...(def !== undefined && typeof def !== 'function' ? { default: def } : {}),
    ...marks,
  };
  const own = { ...rules, ...enumRules(d, path), ...extraRules };
  // One `type` per schema: a type union (`["string", "null"]`) is legal JSON Schema, but clients that map
  // tool schemas onto a one-type dialect (Gemini's OpenAPI subset) drop or refuse it, so it is spelt as
  // anyOf, one branch per type, with null a branch of its own.
  const single = types.length <= 1;
  const branches: JsonSchema[] = [
    ...(single ? [{ ...(types[0] ? { type: types[0] } : {}), ...own }] : types.map((type) => ({ type }))),
    ...(nullable ? [{ type: 'null' }] : []),
  ];
  if (branches.length === 1) return { ...annotations, ...branches[0], ...trailer };
  return { ...annotations, anyOf: branches, ...(single ? {} : own), ...trailer };
}

type Test = yup.TestConfig;

function typeAndRules(
  schema: yup.AnySchema,
  d: yup.SchemaDescription,
  tests: Test[],
  path: string,
): [string[], JsonSchema] {
  switch (d.type) {
    case 'string':
      return [['string'], stringRules(tests, path)];
    case 'number':
      if (!tests.some((t) => t.name === 'integer')) return [['number'], numberRules(tests, path)];
      return [['integer'], withIntegerFormat(numberRules(tests, path))];
    case 'boolean':
      return [['boolean'], {}];
    case 'date':
      // JSON carries dates as text; the API parses them.
      return [['string'], { format: 'date-time' }];
    case 'object':
      return [['object'], objectRules(schema as yup.AnyObjectSchema, tests, path)];
    case 'array':
      return [['array'], arrayRules(schema as yup.ArraySchema<unknown[], yup.AnyObject>, tests, path)];
    case 'mixed':
      return [mixedTypes(d), {}];
    default:
      throw new Error(
        `toJsonSchema: ${at(path)} is a ${d.type} schema, which JSON Schema generation does not support`,
      );
  }
}

/** The listed and refused values but null, which nullable alone decides (its own `{ type: "null" }` branch). */
function enumRules(d: yup.SchemaDescription, path: string): JsonSchema {
  const own: JsonSchema = {};
  if ([...d.oneOf, ...d.notOneOf].some(isRefDescription)) {
    throw new Error(
      `toJsonSchema: ${at(path)} lists a ref among its values, which JSON Schema cannot express`,
    );
  }
  const refused = d.notOneOf.filter((v) => v != null);
  if (refused.length > 0) own.not = { enum: refused };
  // Absent values pass oneOf anyway.
  const values = d.oneOf.filter((v) => v != null);
  if (d.oneOf.length > 0) {
    if (values.length === 0) own.not = {};
    else if (values.length === 1) own.const = values[0];
    else own.enum = values;
  }
  return own;
}

/** mixed(): the one type its listed values share, or none; any type but null when it lists nothing. */
function mixedTypes(d: yup.SchemaDescription): string[] {
  const kinds = new Set(d.oneOf.filter((v) => v != null).map((v) => typeof v));
  const [kind] = kinds;
  if (kinds.size === 1 && (kind === 'string' || kind === 'number' || kind === 'boolean')) return [kind];
  return d.oneOf.length === 0 ? ANY_BUT_NULL : [];
}

function stringRules(tests: Test[], path: string): JsonSchema {
  const out: JsonSchema = {};
  const checks: JsonSchema[] = [];
  for (const t of tests) {
    switch (t.name) {
      // string().required() also refuses ''.
      case 'required':
        atLeast(out, 'minLength', 1);
        break;
      case 'min':
        atLeast(out, 'minLength', limit(t, 'min', path));
        break;
      // yup's own max() counts UTF-16 units where maxLength counts code points; maxChars (validate.ts)
      // counts code points too, so it is the exact one.
      case 'max':
        atMost(out, 'maxLength', limit(t, 'max', path));
        break;
      case 'length':
        atLeast(out, 'minLength', limit(t, 'length', path));
        atMost(out, 'maxLength', limit(t, 'length', path));
        break;
      case 'matches':
      case 'datetime':
        checks.push(...patternCheck(t));
        break;
      case 'email':
        checks.push(formatCheck(t, 'email'));
        break;
      case 'url':
        checks.push(formatCheck(t, 'uri'));
        break;
      // yup's uuid() matches 36 characters exactly; say so, so the length is bounded where it is read.
      case 'uuid':
        checks.push(formatCheck(t, 'uuid'));
        atMost(out, 'maxLength', UUID_LENGTH);
        break;
    }
  }
  if (checks.length === 1) Object.assign(out, checks[0]);
  else if (checks.length > 1) out.allOf = checks;
  return out;
}

function patternCheck(t: Test): JsonSchema[] {
  const regex = t.params?.regex;
  // JSON Schema patterns carry no flags, and validators read them as Unicode regexes: a rule that cannot be
  // said that way is left to yup (looser, never stricter).
  if (!(regex instanceof RegExp) || /[imsy]/.test(regex.flags) || !unicodeSafe(regex.source)) return [];
  // `matches(re, { excludeEmptyString: true })` lets '' through without matching.
  const emptyToo = acceptsEmpty(t) && ''.search(regex) === -1;
  return [{ pattern: emptyToo ? `^$|${regex.source}` : regex.source }];
}

const unicodeSafe = (source: string) => {
  try {
    return new RegExp(source, 'u') instanceof RegExp;
  } catch {
    return false;
  }
};

// yup's email() and url() let '' through; a JSON Schema format would not.
const formatCheck = (t: Test, format: string): JsonSchema =>
  acceptsEmpty(t) ? { anyOf: [{ const: '' }, { format }] } : { format };

// The excludeEmptyString flag lives only in the test's closure, so ask the test itself.
const acceptsEmpty = (t: Test) => yup.string().test(t).isValidSync('', { strict: true });

function numberRules(tests: Test[], path: string): JsonSchema {
  const out: JsonSchema = {};
  for (const t of tests) {
    // moreThan() and lessThan() are tests named min and max with other params.
    if (t.name === 'min') {
      if (t.params && 'more' in t.params) out.exclusiveMinimum = limit(t, 'more', path);
      else out.minimum = limit(t, 'min', path);
    } else if (t.name === 'max') {
      if (t.params && 'less' in t.params) out.exclusiveMaximum = limit(t, 'less', path);
      else out.maximum = limit(t, 'max', path);
    }
  }
  return prune(out);
}

function objectRules(schema: yup.AnyObjectSchema, tests: Test[], path: string): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, value] of Object.entries(schema.fields)) {
    const fieldPath = path ? `${path}.${key}` : key;
    const field = asSchema(value, fieldPath);
    properties[key] = convert(field, fieldPath);
    // required() and defined() both clear `optional`.
    if (!field.spec.optional) required.push(key);
  }
  // `.unknown(true)` keeps a noUnknown test that lets anything through, so ask the test itself.
  const closed = tests.some(
    (t) => t.name === 'noUnknown' && !yup.object().test(t).isValidSync({ probe: 1 }, { strict: true }),
  );
  return {
    ...(Object.keys(properties).length > 0 ? { properties } : {}),
    ...(required.length > 0 ? { required } : {}),
    ...(closed ? { additionalProperties: false } : {}),
  };
}

function arrayRules(
  schema: yup.ArraySchema<unknown[], yup.AnyObject>,
  tests: Test[],
  path: string,
): JsonSchema {
  const out: JsonSchema = {};
  if (schema.innerType) out.items = convert(asSchema(schema.innerType, `${path}[]`), `${path}[]`);
  for (const t of tests) {
    if (t.name === 'min' || t.name === 'length') atLeast(out, 'minItems', limit(t, t.name, path));
    if (t.name === 'max' || t.name === 'length') atMost(out, 'maxItems', limit(t, t.name, path));
  }
  return out;
}

function asSchema(value: unknown, path: string): yup.AnySchema {
  if (value instanceof yup.Schema && value.type !== 'tuple') return value as yup.AnySchema;
  const kind = value instanceof yup.Schema ? 'tuple' : yup.isSchema(value) ? 'lazy' : 'ref';
  throw new Error(
    `toJsonSchema: ${at(path)} is a ${kind} schema, which JSON Schema generation does not support`,
  );
}

/** A numeric test parameter; a yup.ref() limit is only known per value. */
function limit(t: Test, key: string, path: string): number | undefined {
  const value = t.params?.[key];
  if (typeof value === 'object' && value !== null) {
    throw new Error(
      `toJsonSchema: ${at(path)} has a ${t.name} limit given by a ref, which JSON Schema cannot express`,
    );
  }
  return typeof value === 'number' ? value : undefined;
}

// Several limits of one kind intersect, as yup applies them all.
function atLeast(out: JsonSchema, key: string, value: number | undefined) {
  const now = out[key];
  if (value !== undefined) out[key] = typeof now === 'number' ? Math.max(now, value) : value;
}

function atMost(out: JsonSchema, key: string, value: number | undefined) {
  const now = out[key];
  if (value !== undefined) out[key] = typeof now === 'number' ? Math.min(now, value) : value;
}

const UUID_LENGTH = 36;
const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/**
 * An integer schema with its `format`: int32 when its bounds fit in 32 bits (a page size, a PostgreSQL
 * integer column), int64 otherwise. JSON numbers are exact to 2^53, well inside int64.
 */
export function withIntegerFormat(schema: JsonSchema): JsonSchema {
  const low = schema.minimum ?? schema.exclusiveMinimum;
  const high = schema.maximum ?? schema.exclusiveMaximum;
  const fits = typeof low === 'number' && typeof high === 'number' && low >= INT32.min && high <= INT32.max;
  return { ...schema, format: fits ? 'int32' : 'int64' };
}

/** The largest value of a PostgreSQL `integer` column (and of OpenAPI's int32). */
export const INT32_MAX = INT32.max;

const partition = (o: JsonSchema, pick: (key: string) => boolean): [JsonSchema, JsonSchema] => [
  Object.fromEntries(Object.entries(o).filter(([k]) => pick(k))),
  Object.fromEntries(Object.entries(o).filter(([k]) => !pick(k))),
];

const prune = (o: JsonSchema): JsonSchema =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isRefDescription = (v: unknown) => isRecord(v) && v.type === 'ref' && typeof v.key === 'string';

const at = (path: string) => path || 'the schema';
