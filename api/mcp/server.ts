import { ProtocolError, Server, type CallToolResult, type Tool } from '@modelcontextprotocol/server';
import * as yup from 'yup';
import {
  type ApprovalView,
  operations as approvals,
  taskOf,
  taskOfParked,
  type TaskState,
} from '../../domain/approvals';
import type { Actor } from '../../domain/kernel/actor';
import { DomainError, type ErrorCode } from '../../domain/kernel/errors';
import { gateInstructions, type Parked } from '../../domain/kernel/gate';
import type { AnyOperation, Services } from '../../domain/kernel/operation';
import { refusalReason, type Principal } from '../../domain/kernel/permissions';
import { executeOrPark, runOperation } from '../../domain/kernel/runner';
import { activeSpanLinks, contextFrom, inSpan, SpanKind } from '../../domain/kernel/tracing';
import type { DatabaseErrorKind } from '../../infra/prometheus';
import { databaseErrorKind, databaseUnavailable } from '../errors';
import { DATABASE_UNAVAILABLE } from '../unavailable';
import { RPC } from './errors';
import { isObject } from './requests';
import { inNaming, operationForTool, TOOL_OPERATIONS, toolOf, type ToolNaming } from './tools';

const GATE_INSTRUCTIONS = gateInstructions(TOOL_OPERATIONS.filter((op) => op.gated).map((op) => op.name));

/** The tasks extension (SEP-2663): a gated call answers a task whose life is its approval request's. */
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** What one MCP request learned, for its audit row (and the refusal's code and a database error, for metrics). */
export type McpCall = {
  tool?: string;
  outcome?: 'refused' | 'parked' | 'failed';
  reason?: string;
  code?: ErrorCode;
  dbError?: DatabaseErrorKind;
};

export type McpCallContext = {
  services: Services;
  principal: Principal;
  actor: Actor;
  naming: ToolNaming;
  call: McpCall;
};

type ToolResult = {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: true;
};

const json = (value: unknown) => ({ type: 'text' as const, text: JSON.stringify(value) });

/** A tool's answer: `structuredContent` and the same JSON as text. */
const answered = (output: unknown): ToolResult => ({
  content: [json(output)],
  structuredContent: output as Record<string, unknown>,
});

// One message per refusal kind, whatever check failed (as at the REST door); the audit log has the reason.
const FORBIDDEN = 'This API key is not allowed to do this.';

/** A domain refusal as a tool result the model can act on: the code, the message, the field. */
function refused(err: { code: string; message: string; details?: Record<string, unknown> }): ToolResult {
  const message =
    err.code === 'forbidden' || err.code === 'unauthorized'
      ? FORBIDDEN
      : `${err.message}${typeof err.details?.field === 'string' ? ` (field: ${err.details.field})` : ''}`;
  return { content: [{ type: 'text', text: `${err.code}: ${message}` }], isError: true };
}

/** What a gated call answers a client without the tasks extension: nothing has happened yet. */
function pending(p: Parked, naming: ToolNaming): ToolResult {
  const { status, approval_id, summary, expires_at, approval_url } = p;
  const answer = { status, approval_id, summary, expires_at, approval_url };
  const text = inNaming(
    `Nothing has happened yet. "${summary}" must be approved by a person (an admin of the workspace) before it runs: they decide at ${approval_url} (give your user this link). Approval request ${approval_id} waits until ${expires_at}; check it with approval.get, or withdraw it with approval.cancel.`,
    naming,
  );
  return { content: [{ type: 'text', text }, json(answer)], structuredContent: answer };
}

/** A task on the wire (tasks extension): its state, and on completion exactly what the tool answers. */
function taskFields(t: TaskState) {
  const base = {
    taskId: t.taskId,
    status: t.status,
    statusMessage: t.statusMessage,
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttlMs: t.ttlMs,
    pollIntervalMs: t.pollIntervalMs,
  };
  if (t.outcome)
    return { ...base, result: 'output' in t.outcome ? answered(t.outcome.output) : refused(t.outcome.error) };
  if (t.failure)
    return {
      ...base,
      error: {
        code: RPC.refused,
        message: t.statusMessage,
        data: { status: t.failure.status, reason: t.failure.reason },
      },
    };
  return base;
}

const byTask = yup.object({ taskId: yup.string().required() });
const byTaskWithResponses = byTask.shape({ inputResponses: yup.object().optional() });

/** Who this server says it is: in `initialize`, and in the `_meta` of every 2026-07-28 result. */
export const SERVER_INFO = { name: 'lead-service', title: 'Lead service', version: '1.0.0' };

/** The tools this key's scopes and its owner's live role allow. */
export const offeredTools = (principal: Principal) =>
  TOOL_OPERATIONS.filter((op) => refusalReason(principal, op.requirement) === undefined);

/** A fault, not a refusal: its text goes to the audit row only. */
function failure(c: McpCallContext, err: unknown): ToolResult {
  const { call, actor } = c;
  call.outcome = 'failed';
  call.reason = (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 500);
  call.dbError = databaseErrorKind(err);
  // A database outage tells the model to retry, as REST answers 503; anything else is ours to fix.
  if (databaseUnavailable(err)) {
    call.code = 'unavailable';
    return refused({ code: 'unavailable', message: DATABASE_UNAVAILABLE });
  }
  throw new ProtocolError(
    RPC.internalError,
    `The service failed to handle this request (request id ${actor.ctx.requestId ?? 'unknown'}).`,
  );
}

function refusal({ call }: McpCallContext, err: DomainError): ToolResult {
  call.outcome = 'refused';
  call.reason = err.auditReason ?? err.message;
  call.code = err.code;
  return refused(err);
}

/**
 * One `tools/call` as the key, through the one runner: the tool's answer, its refusal, or (gated) a
 * parked request, as a task when the client declared the tasks extension. A fault that is not the
 * database's throws a ProtocolError; an unlisted tool gets exactly the answer of an unknown one.
 */
export function callTool(
  c: McpCallContext,
  offered: readonly AnyOperation[],
  params: { name: string; arguments?: Record<string, unknown>; _meta?: unknown },
  tasks: boolean,
): Promise<CallToolResult> {
  // The MCP convention for trace context: `params._meta.traceparent` (and `tracestate`), which an
  // assistant's own trace sets; it wins over the HTTP request's, which the span links to.
  const meta = isObject(params._meta) ? params._meta : {};
  return inSpan(
    `tools/call ${params.name.slice(0, 100)}`,
    {
      kind: SpanKind.SERVER,
      ...(typeof meta.traceparent === 'string' && { parent: contextFrom(meta) }),
      attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': params.name.slice(0, 100) },
      links: activeSpanLinks(),
    },
    () => callToolUntraced(c, offered, params, tasks),
  );
}

async function callToolUntraced(
  c: McpCallContext,
  offered: readonly AnyOperation[],
  params: { name: string; arguments?: Record<string, unknown> },
  tasks: boolean,
): Promise<CallToolResult> {
  const { call } = c;
  const op = operationForTool(params.name, offered);
  call.tool = op?.name ?? params.name.slice(0, 100);
  if (!op) {
    call.outcome = 'refused';
    call.reason = `tool ${call.tool} is unknown or not allowed for this key`;
    throw new ProtocolError(RPC.invalidParams, `Unknown tool: ${call.tool}`);
  }
  try {
    const result = await executeOrPark(c.services, op, c.actor, params.arguments ?? {});
    if ('parked' in result) {
      call.outcome = 'parked';
      // A CreateTaskResult (tasks extension) where the SDK's types know only CallToolResult.
      if (tasks)
        return {
          resultType: 'task',
          ...taskFields(taskOfParked(result.parked)),
        } as unknown as CallToolResult;
      return pending(result.parked, c.naming);
    }
    if (result.refusal) return refusal(c, result.refusal);
    return answered(result.output);
  } catch (err) {
    return err instanceof DomainError ? refusal(c, err) : failure(c, err);
  }
}

/**
 * The per-request MCP server: its tools are the operations this key's scopes and its owner's live
 * role allow, and every call runs through the one runner as the key. A server shared across requests
 * once leaked answers between clients (GHSA-345p-7cg4-v4c7); this one lives and dies with its request.
 * `modern` (2026-07-28) adds the tasks extension; a 2025 client gets the plain pending result.
 */
export function buildMcpServer(
  c: McpCallContext,
  era: 'legacy' | 'modern',
  supportedProtocolVersions: readonly string[],
): Server {
  const { services, actor, naming } = c;
  const offered = offeredTools(c.principal);
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, ...(era === 'modern' ? { extensions: { [TASKS_EXTENSION]: {} } } : {}) },
    supportedProtocolVersions: [...supportedProtocolVersions],
    instructions: inNaming(`Tools act in one workspace with this API key. ${GATE_INSTRUCTIONS}`, naming),
  });

  server.setRequestHandler('tools/list', () => ({ tools: offered.map((op) => toolOf(op, naming) as Tool) }));
  server.setRequestHandler('tools/call', (req, ctx) =>
    callTool(c, offered, req.params, declaresTasks(ctx.mcpReq.envelope)),
  );

  if (era === 'modern') {
    /** The key's own approval request behind a task, or the extension's "not found". */
    const approvalOf = async (taskId: string, envelope: unknown): Promise<ApprovalView> => {
      requireTasks(envelope);
      try {
        return await runOperation(services, approvals.getApproval, actor, { approvalId: taskId });
      } catch (err) {
        if (err instanceof DomainError && (err.code === 'not_found' || err.code === 'invalid_request'))
          throw new ProtocolError(RPC.invalidParams, 'Failed to retrieve task: Task not found');
        throw err;
      }
    };
    server.setRequestHandler('tasks/get', { params: byTask }, async ({ taskId }, ctx) =>
      taskFields(taskOf(await approvalOf(taskId, ctx.mcpReq.envelope))),
    );
    // Cooperative, as the extension says: a request already decided stays as it ended.
    server.setRequestHandler('tasks/cancel', { params: byTask }, async ({ taskId }, ctx) => {
      const approval = await approvalOf(taskId, ctx.mcpReq.envelope);
      if (approval.status === 'PENDING')
        await runOperation(services, approvals.cancelApproval, actor, { approvalId: taskId });
      return {};
    });
    // Nothing here ever asks the client for input, so there is never a response to take.
    server.setRequestHandler('tasks/update', { params: byTaskWithResponses }, async ({ taskId }, ctx) => {
      await approvalOf(taskId, ctx.mcpReq.envelope);
      return {};
    });
  }
  return server;
}

/** Whether the request's `_meta` declares the tasks extension among the client's capabilities. */
export function declaresTasks(envelope: unknown): boolean {
  const capabilities = (envelope as Record<string, unknown> | undefined)?.[
    'io.modelcontextprotocol/clientCapabilities'
  ] as { extensions?: Record<string, unknown> } | undefined;
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}

function requireTasks(envelope: unknown): void {
  if (!declaresTasks(envelope))
    throw new ProtocolError(RPC.missingCapability, 'Missing required client capability', {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
}
