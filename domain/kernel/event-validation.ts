import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { EventType } from './event-catalogue';
import published from './event-schemas.json';

/** The published schemas (generated from the catalogue's types by `npm run schemas`). */
export const EVENT_SCHEMAS = published as {
  envelope: Record<string, unknown>;
  types: Record<EventType, { description: string; schema: Record<string, unknown> }>;
};

const ajv = new Ajv2020({ allErrors: false, strict: true });
addFormats(ajv);
const compiled = new Map<string, ValidateFunction>();

/**
 * Refuses event data that does not match its type's published schema, naming the type and the first
 * failing field (as a JSON pointer into the data): no event leaves that a receiver validating against
 * the schema would reject. Each type's validator is compiled once, on first use.
 */
export function checkEventData(type: EventType, data: unknown): void {
  let validate = compiled.get(type);
  if (!validate) {
    const entry = EVENT_SCHEMAS.types[type];
    if (!entry) throw new Error(`event type ${type} has no published schema: run npm run schemas`);
    validate = ajv.compile(entry.schema);
    compiled.set(type, validate);
  }
  if (!validate(data)) {
    throw new Error(`${type} data does not match its schema: ${refusal(validate.errors?.[0])}`);
  }
}

const pointer = (parent: string, name: unknown) =>
  `${parent}/${String(name).replace(/~/g, '~0').replace(/\//g, '~1')}`;

// ajv puts a missing or extra property's name in params and points at its parent object; name it.
function refusal(e: ErrorObject | undefined): string {
  if (!e) return '/ is invalid';
  if (e.keyword === 'required') return `${pointer(e.instancePath, e.params.missingProperty)} is required`;
  if (e.keyword === 'additionalProperties')
    return `${pointer(e.instancePath, e.params.additionalProperty)} is not allowed (${e.message ?? ''})`;
  return `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`;
}
