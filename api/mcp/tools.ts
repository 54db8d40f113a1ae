import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { getApproval, listApprovals } from '../../domain/approvals/operations/approvals';
import { disconnectConnection, listConnections } from '../../domain/connections/operations/connections';
import {
  getConversation,
  listConversations,
  replyToConversation,
} from '../../domain/conversations/operations/conversations';
import { getWorkspace } from '../../domain/identity/operations/workspaces';
import { toJsonSchema, type JsonSchema } from '../../domain/kernel/json-schema';
import { closedInput, type AnyOperation } from '../../domain/kernel/operation';
import { addLeadNote } from '../../domain/leads/operations/add-note';
import { archiveLead } from '../../domain/leads/operations/archive';
import { createLead } from '../../domain/leads/operations/create';
import { getLead } from '../../domain/leads/operations/get';
import { searchLeads } from '../../domain/leads/operations/search';
import { setLeadStatus } from '../../domain/leads/operations/set-status';
import { updateLead } from '../../domain/leads/operations/update';
import { schemas } from '../openapi/schemas';

/** The registered operations this door offers as tools; each tool is a projection of one. */
export const TOOL_OPERATIONS: readonly AnyOperation[] = [
  searchLeads,
  getLead,
  createLead,
  updateLead,
  setLeadStatus,
  addLeadNote,
  archiveLead,
  listConversations,
  getConversation,
  replyToConversation,
  listConnections,
  disconnectConnection,
  getWorkspace,
  getApproval,
  listApprovals,
];

/** Claude Desktop rejects a tool list holding a dotted name; OpenAI's clients accept only [a-zA-Z0-9_-]. */
export type ToolNaming = 'dotted' | 'underscore';
export const toolName = (op: AnyOperation, naming: ToolNaming) =>
  naming === 'underscore' ? op.name.replace(/\./g, '_') : op.name;

/** Both forms are accepted on either URL. */
export const operationForTool = (name: string, offered: readonly AnyOperation[]) =>
  offered.find((op) => op.name === name || toolName(op, 'underscore') === name);

/** A JSON Schema with its `$ref`s to the REST document's components inlined (tool schemas stand alone). */
function inline(schema: unknown): JsonSchema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const ref = (node as { $ref?: string }).$ref;
    if (ref) return walk(schemas[ref.split('/').pop()!]);
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
  };
  return walk(schema) as JsonSchema;
}

const object = (properties: Record<string, unknown>): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
});

/** What a gated tool answers when it parks: nothing has happened yet. */
export const PENDING_APPROVAL: JsonSchema = {
  type: 'object',
  properties: {
    status: { const: 'pending_approval' },
    approval_id: { type: 'string', format: 'uuid' },
    summary: { type: 'string' },
    expires_at: { type: 'string', format: 'date-time' },
  },
  required: ['status', 'approval_id', 'summary', 'expires_at'],
};

const lead = { $ref: '#/components/schemas/Lead' };
const text = { type: 'string' };
const maybe = (type: string) => ({ type: [type, 'null'] });
const list = (item: unknown, extra: Record<string, unknown> = {}) =>
  object({ ...extra, data: { type: 'array', items: item }, count: { type: 'integer', minimum: 0 } });
const message = object({
  id: text,
  channel: text,
  direction: { enum: ['inbound', 'outbound'] },
  status: text,
  body: text,
  at: text,
});
const connection = object({
  id: text,
  system: text,
  status: { enum: ['CONNECTED', 'DISCONNECTED'] },
  connected_at: text,
  disconnected_at: maybe('string'),
});
const approval = object({
  id: text,
  status: { enum: ['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'EXECUTED', 'FAILED'] },
  operation: text,
  summary: text,
  requested_by: object({ key_id: text, user_id: text }),
  decided_by: maybe('string'),
  decided_at: maybe('string'),
  reason: maybe('string'),
  outcome: {},
  expires_at: text,
  created_at: text,
  finished_at: maybe('string'),
});
/** What each tool answers; where the REST contract already describes it, its schemas are reused. */
const OUTPUTS: Record<string, unknown> = {
  'lead.search': { $ref: '#/components/schemas/LeadList' },
  'lead.get': { $ref: '#/components/schemas/LeadWithActivity' },
  'lead.create': { $ref: '#/components/schemas/IntakeResponse' },
  'lead.update': lead,
  'lead.set_status': object({
    lead,
    warnings: { type: 'array', items: { $ref: '#/components/schemas/Warning' } },
  }),
  'lead.add_note': object({
    note: object({ id: { type: 'string' }, body: { type: 'string' }, created_at: { type: 'string' } }),
    lead,
  }),
  'lead.archive': lead,
  'conversation.list': list(object({ channel: text, messages: { type: 'integer' }, last_message: message }), {
    lead_id: text,
  }),
  'conversation.get': list(message, { lead_id: text, channel: text }),
  'conversation.reply': {
    ...message,
    properties: { ...(message.properties as object), lead_id: text },
    required: [...(message.required as string[]), 'lead_id'],
  },
  'connection.list': list(connection),
  'connection.disconnect': connection,
  'approval.get': approval,
  'approval.list': list(approval),
  'workspace.get': {
    type: 'object',
    properties: {
      workspace: { $ref: '#/components/schemas/Me/properties/workspace' },
      key: { type: ['object', 'null'] },
      acting_as: { type: 'object' },
    },
    required: ['workspace', 'key', 'acting_as'],
  },
};

function outputSchema(op: AnyOperation): JsonSchema {
  const done = inline(OUTPUTS[op.name] ?? { type: 'object' });
  return op.gated ? { type: 'object', anyOf: [PENDING_APPROVAL, done] } : done;
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
