import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { PARKED } from '../../domain/kernel/gate';
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

function outputSchema(op: AnyOperation): JsonSchema {
  return op.gated ? { type: 'object', anyOf: [PARKED, op.output] } : op.output;
}

/** The tool a model sees for an operation: its schema, honest annotations, and what a gated call does. */
export function toolOf(op: AnyOperation, naming: ToolNaming): Tool {
  const gate = op.gated
    ? ' Calling it does not do it: it parks a request that a person (an admin of the workspace) must approve, and answers with an approval_id to follow with approval.get.'
    : '';
  return {
    name: toolName(op, naming),
    title: op.title,
    description: `${op.description}${gate} Returns ${op.returns}`,
    inputSchema: toJsonSchema(closedInput(op)) as Tool['inputSchema'],
    outputSchema: outputSchema(op) as Tool['outputSchema'],
    annotations: {
      title: op.title,
      readOnlyHint: !op.changes,
      destructiveHint: op.destructive,
      idempotentHint: op.idempotent,
      openWorldHint: op.openWorld ?? false,
    },
  };
}
