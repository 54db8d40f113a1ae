import type * as yup from 'yup';
import { toJsonSchema, type JsonSchema } from '../domain/kernel/json-schema';
import type { AdminBinding } from '../domain/kernel/operation';
import type { Command } from './commands';

/** One flag a command takes, read from its binding and described by the input field it fills. */
export type Flag = {
  name: string;
  /** Other names that fill the same field (`--id` for `--invoice`). */
  aliases: string[];
  /** The input field's path (`cadence.days`); undefined when probing could not tell. */
  field: string | undefined;
  description: string;
  required: boolean;
  /** How the value is written: a comma-separated list, JSON, or plain text. */
  form: 'list' | 'json' | 'text';
  /** A field typed boolean: the flag is a switch, given without a value. */
  switch: boolean;
  /** The field's JSON Schema type (`integer`, `string`...), for the usage line. */
  type?: string;
  /** The field's choices and default, when it has them. */
  enum?: unknown[];
  default?: unknown;
};

/**
 * Every flag a command takes, `--workspace` included where it means something: required where the
 * operation acts in a workspace, optional where it finds a record by id, absent where it acts on none.
 */
export function flagsOf(command: Command): Flag[] {
  const own = bindingFlags(command);
  const workspace = (required: boolean, description: string): Flag => ({
    name: 'workspace',
    aliases: [],
    field: undefined,
    description,
    required,
    form: 'text',
    switch: false,
  });
  switch (command.operation.reach) {
    case 'workspace':
      return [workspace(true, 'The workspace it acts in (its id).'), ...own];
    case 'record':
      return [...own, workspace(false, 'Only a record of this workspace (its id); without it, any.')];
    case 'none':
      return own;
  }
}

type Fill = NonNullable<AdminBinding<unknown>['flags']>;

// Truthy, so conditional spreads (`...(f.review ? {...} : {})`) read what they guard; a list, so a
// binding that splits it yields two items and one that parses JSON yields text.
const PROBE = 'a,b';

/** Runs the binding with some flags given: which flags it read, and the input it made. */
function probe(fill: Fill, given: (name: string) => boolean) {
  const read: string[] = [];
  const f = new Proxy<Record<string, string>>(
    {},
    {
      get: (_, key) => {
        if (typeof key !== 'string') return undefined;
        if (!read.includes(key)) read.push(key);
        return given(key) ? PROBE : undefined;
      },
    },
  );
  let input: unknown;
  try {
    input = fill(f);
  } catch {
    // A helper refused the probe value; the flags read before it still count, and the other runs
    // (with it absent) find the ones after it.
  }
  return { read, input };
}

/** Paths of the defined values in a made input; arrays count as one value. */
function filled(value: unknown, path = ''): Map<string, unknown> {
  if (value === undefined) return new Map();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return new Map([[path, value]]);
  return new Map(Object.entries(value).flatMap(([k, v]) => [...filled(v, path ? `${path}.${k}` : k)]));
}

/**
 * The flags a binding reads, found by running it against a recording proxy: with no flag, with every
 * flag, and with each flag alone, until no new one shows (`f.invoice ?? f.id` reads `id` only when
 * `invoice` is absent; `f.days || f.time ? {...}` reads the rest only when one is given). Each flag's
 * field is what it alone fills beyond what no flag fills.
 */
function bindingFlags({ operation, binding }: Command): Flag[] {
  const fill = binding.flags;
  if (!fill) return [];
  const none = probe(fill, () => false);
  const names = [...none.read];
  const base = filled(none.input);
  const alone = new Map<string, Map<string, unknown>>();
  const learn = (read: string[]) => read.forEach((n) => names.includes(n) || names.push(n));
  learn(probe(fill, () => true).read);
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const run = probe(fill, (n) => n === name);
    learn(run.read);
    alone.set(name, filled(run.input));
  }
  const schema = toJsonSchema(operation.input as yup.AnyObjectSchema);
  const byField = new Map<string, Flag>();
  const flags: Flag[] = [];
  for (const name of names) {
    const own = [...alone.get(name)!].filter(([path]) => !base.has(path));
    const [field, value] = own[0] ?? [undefined, undefined];
    const known = field === undefined ? undefined : byField.get(field);
    if (known) {
      known.aliases.push(name);
      continue;
    }
    const at = field === undefined ? undefined : fieldAt(schema, field);
    const flag: Flag = {
      name,
      aliases: [],
      field,
      description: typeof at?.schema.description === 'string' ? at.schema.description : '',
      required: at?.required ?? false,
      form: Array.isArray(value) && value.length === 2 ? 'list' : isStructured(at?.schema) ? 'json' : 'text',
      switch: at?.schema.type === 'boolean',
      type: [at?.schema.type].flat().find((t): t is string => typeof t === 'string' && t !== 'null'),
      enum: at?.schema.enum as unknown[] | undefined,
      default: at?.schema.default,
    };
    if (field !== undefined) byField.set(field, flag);
    flags.push(flag);
  }
  return flags;
}

/** A field's JSON Schema by dotted path, and whether it is required all the way down. */
function fieldAt(schema: JsonSchema, path: string) {
  let at: JsonSchema | undefined = schema;
  let required = true;
  for (const key of path.split('.')) {
    const properties = at?.properties as Record<string, JsonSchema> | undefined;
    required &&= Array.isArray(at?.required) && at.required.includes(key);
    at = properties?.[key];
  }
  return at && { schema: at, required };
}

const isStructured = (schema: JsonSchema | undefined) =>
  [schema?.type].flat().some((t) => t === 'array' || t === 'object');
