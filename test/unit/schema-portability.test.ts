import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type * as yup from 'yup';
import { TOOL_OPERATIONS, toolOf, type ToolNaming } from '../../api/mcp/tools';
import { toJsonSchema } from '../../domain/kernel/json-schema';
import { closedInput } from '../../domain/kernel/operation';
import { allOperations } from '../../domain/registry';

/**
 * The schema portability check the MCP Inspector makes on `tools/list` (2.12.0, `--cli --method
 * tools/list`, its core/json/schemaLint.ts), made here because the Inspector needs Node 22. Every
 * inputSchema and outputSchema is walked into every subschema (properties, patternProperties, $defs,
 * definitions, dependentSchemas, dependencies; allOf, anyOf, oneOf, prefixItems; items, contains, not,
 * propertyNames, if, then, else, additionalProperties, unevaluatedProperties, additionalItems,
 * unevaluatedItems, contentSchema), to a depth of 64, and these are its rules:
 *
 * 1. boolean-schema (an error there): a bare `true` or `false` where a schema object is expected. Only
 *    additionalProperties, unevaluatedProperties, additionalItems and unevaluatedItems may be booleans.
 * 2. type-union: `type` is an array of JSON types (`["string", "null"]`). Legal JSON Schema, but a client
 *    that maps tool schemas onto a one-type dialect (the OpenAPI subset of Gemini's function
 *    declarations) refuses the tool or drops the constraint: write anyOf branches of one type each.
 * 3. remote-ref: a `$ref` that does not start with `#` (unless the schema declares an `$id`): clients
 *    fetch no remote schema.
 * 4. untyped-schema: a schema with no keyword that constrains its value (no type, enum, const, bound,
 *    pattern, format, applicator, $ref...; `if` counts only with `then` or `else`), so it accepts any
 *    value. Only the operand of `not` may be `{}` (`{ not: {} }` is the spelling of "never").
 *
 * The Inspector reports 2 to 4 as warnings; here every finding fails, and none is allowed.
 */
type Finding = { rule: string; path: string };

const MAP_KEYWORDS = [
  'properties',
  'patternProperties',
  'dependentSchemas',
  'dependencies',
  '$defs',
  'definitions',
];
const ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_KEYWORDS = [
  'items',
  'contains',
  'not',
  'propertyNames',
  'if',
  'then',
  'else',
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
  'contentSchema',
];
const BOOLEAN_ALLOWED = new Set([
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
]);
// `if`, `then` and `else` are absent: they constrain only as a pair.
const CONSTRAINING = new Set([
  ...['type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'],
  ...['maxLength', 'minLength', 'pattern', 'format', 'contentMediaType', 'contentEncoding', 'contentSchema'],
  ...['maxItems', 'minItems', 'uniqueItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties'],
  ...['required', 'dependentRequired', 'allOf', 'anyOf', 'oneOf', 'not', 'items', 'prefixItems', 'contains'],
  ...['additionalItems', 'unevaluatedItems', 'properties', 'patternProperties', 'additionalProperties'],
  ...['unevaluatedProperties', 'propertyNames', 'dependentSchemas', 'dependencies'],
  ...['$ref', '$dynamicRef', '$recursiveRef'],
]);
const JSON_TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'string', 'integer']);
const MAX_DEPTH = 64;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const child = (path: string, key: string) =>
  /^[A-Za-z_$][\w$]*$/.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;

/** Each direct subschema of a schema, with its path and the keyword it sits under. */
function subschemas(node: Record<string, unknown>, path: string): [unknown, string, string][] {
  const out: [unknown, string, string][] = [];
  for (const key of MAP_KEYWORDS) {
    const map = node[key];
    if (isRecord(map))
      for (const [name, sub] of Object.entries(map)) out.push([sub, child(child(path, key), name), key]);
  }
  for (const key of ARRAY_KEYWORDS) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((sub, i) => out.push([sub, `${child(path, key)}[${i}]`, key]));
  }
  for (const key of SCHEMA_KEYWORDS) {
    if (!(key in node)) continue;
    const value = node[key];
    if (key === 'items' && Array.isArray(value))
      value.forEach((sub, i) => out.push([sub, `${child(path, key)}[${i}]`, key]));
    else out.push([value, child(path, key), key]);
  }
  return out;
}

const declaresId = (node: unknown, depth = 0): boolean =>
  depth <= MAX_DEPTH &&
  isRecord(node) &&
  ((typeof node.$id === 'string' && node.$id !== '') ||
    subschemas(node, '').some(([sub]) => declaresId(sub, depth + 1)));

/** What the Inspector would report for one schema. */
function portabilityFindings(schema: unknown): Finding[] {
  const findings: Finding[] = [];
  const embeddedIds = declaresId(schema);
  const walk = (node: unknown, path: string, keyword: string | undefined, depth: number) => {
    if (depth > MAX_DEPTH) return;
    if (typeof node === 'boolean') {
      if (keyword === undefined || !BOOLEAN_ALLOWED.has(keyword))
        findings.push({ rule: 'boolean-schema', path });
      return;
    }
    if (!isRecord(node)) return;
    const { type, $ref } = node;
    if (
      Array.isArray(type) &&
      type.length > 0 &&
      type.every((t) => typeof t === 'string' && JSON_TYPES.has(t)) &&
      new Set(type).size === type.length
    )
      findings.push({ rule: 'type-union', path });
    if (typeof $ref === 'string' && $ref !== '' && !$ref.startsWith('#') && !embeddedIds)
      findings.push({ rule: 'remote-ref', path });
    const constrains =
      Object.keys(node).some((k) => CONSTRAINING.has(k)) ||
      ('if' in node && ('then' in node || 'else' in node));
    if (!constrains && keyword !== 'not') findings.push({ rule: 'untyped-schema', path });
    for (const [sub, at, key] of subschemas(node, path)) walk(sub, at, key, depth + 1);
  };
  walk(schema, '', undefined, 0);
  return findings;
}

const report = (schemas: [string, unknown][]) =>
  schemas.flatMap(([where, schema]) =>
    portabilityFindings(schema).map((f) => `${where}${f.path ? `.${f.path}` : ''}: ${f.rule}`),
  );

describe('tool schema portability (the MCP Inspector 2.12 check on tools/list)', () => {
  it('finds what the Inspector finds in schemas known to be unportable', () => {
    const bad = {
      type: 'object',
      properties: {
        anything: {},
        nullable: { type: ['string', 'null'], maxLength: 5 },
        remote: { $ref: 'https://example.com/schema.json' },
        yes: true,
        lone_if: { if: { const: 1 } },
        list: { type: 'array', items: { description: 'no type' } },
      },
      additionalProperties: false,
      not: {},
    };
    assert.deepEqual(portabilityFindings(bad), [
      { rule: 'untyped-schema', path: 'properties.anything' },
      { rule: 'type-union', path: 'properties.nullable' },
      { rule: 'remote-ref', path: 'properties.remote' },
      { rule: 'boolean-schema', path: 'properties.yes' },
      { rule: 'untyped-schema', path: 'properties.lone_if' },
      { rule: 'untyped-schema', path: 'properties.list.items' },
    ]);
    assert.deepEqual(portabilityFindings({ $id: 'https://example.com/a', $ref: 'b.json' }), []);
  });

  for (const naming of ['dotted', 'underscore'] as ToolNaming[]) {
    it(`has no finding in any tool's inputSchema or outputSchema as tools/list serves them (${naming})`, () => {
      const tools = TOOL_OPERATIONS.map((op) => toolOf(op, naming));
      assert.ok(tools.length >= 40, `${tools.length} tools`);
      const found = report(
        tools.flatMap((t): [string, unknown][] => [
          [`${t.name} inputSchema`, t.inputSchema],
          [`${t.name} outputSchema`, t.outputSchema],
        ]),
      );
      assert.deepEqual(found, []);
    });
  }

  it('has none in the operations the other doors offer (REST, admin, public pages) either', () => {
    const found = report(
      allOperations().flatMap((op): [string, unknown][] => [
        [`${op.name} input`, toJsonSchema(closedInput(op) as yup.AnySchema)],
        [`${op.name} output`, op.output],
      ]),
    );
    assert.deepEqual(found, []);
  });
});
