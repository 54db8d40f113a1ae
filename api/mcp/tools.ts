import type * as yup from 'yup';
import { PARKED, gateNotice } from '../../domain/kernel/gate';
import { toJsonSchema, type JsonSchema } from '../../domain/kernel/json-schema';
import { closedInput, type AnyOperation } from '../../domain/kernel/operation';
import { allOperations } from '../../domain/registry';

/** The registered operations this door offers as tools: those that declare it; each tool is a projection of one. */
export const TOOL_OPERATIONS: readonly AnyOperation[] = allOperations().filter((op) => op.doors.mcp);

/** Claude Desktop rejects a tool list holding a dotted name; OpenAI's clients accept only [a-zA-Z0-9_-]. */
export type ToolNaming = 'dotted' | 'underscore';
export const toolName = (op: AnyOperation, naming: ToolNaming) =>
  naming === 'underscore' ? op.name.replace(/\./g, '_') : op.name;

/** Both forms are accepted on either URL. */
export const operationForTool = (name: string, offered: readonly AnyOperation[]) =>
  offered.find((op) => op.name === name || toolName(op, 'underscore') === name);

const mentions = new RegExp(
  `\\b(${TOOL_OPERATIONS.map((op) => op.name.replace('.', '\\.')).join('|')})\\b`,
  'g',
);

/** Text for the model (descriptions, instructions, a parked call's answer) names tools as the list does. */
export const inNaming = (text: string, naming: ToolNaming) =>
  naming === 'underscore' ? text.replace(mentions, (name) => name.replace('.', '_')) : text;

/** What a tool looks like on the wire (MCP `Tool`). */
export type ToolDefinition = {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
};

/** What a gated tool answers: what the operation answers once approved, or that it was parked. */
const outputSchemaOf = (op: AnyOperation): JsonSchema =>
  op.gated ? { type: 'object', anyOf: [PARKED, op.output] } : op.output;

const tools = new Map<string, ToolDefinition>();

/** The tool a model sees for an operation: its schema, honest annotations, and what a gated call does. */
export function toolOf(op: AnyOperation, naming: ToolNaming): ToolDefinition {
  const key = `${naming} ${op.name}`;
  const known = tools.get(key);
  if (known) return known;
  const tool: ToolDefinition = {
    name: toolName(op, naming),
    title: op.title,
    description: inNaming(`${op.description}${gateNotice(op)} Returns ${op.returns}`, naming),
    inputSchema: toJsonSchema(closedInput(op) as yup.AnySchema),
    outputSchema: outputSchemaOf(op),
    annotations: {
      title: op.title,
      readOnlyHint: !op.changes,
      destructiveHint: op.destructive,
      idempotentHint: op.idempotent,
      openWorldHint: op.openWorld ?? false,
    },
  };
  tools.set(key, tool);
  return tool;
}

/**
 * The tool arguments mirrored into `Mcp-Param-*` headers (SEP-2243 `x-mcp-header`): name → header
 * name, for the top-level properties that declare one.
 */
export function mirroredArguments(op: AnyOperation): Record<string, string> {
  const properties = (toolOf(op, 'dotted').inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.fromEntries(
    Object.entries(properties).flatMap(([name, schema]) =>
      typeof schema['x-mcp-header'] === 'string' ? [[name, schema['x-mcp-header']]] : [],
    ),
  );
}
