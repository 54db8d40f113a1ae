import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Actor } from '../../domain/kernel/actor';
import { DomainError } from '../../domain/kernel/errors';
import type { Services } from '../../domain/kernel/operation';
import { refusalReason, type Principal } from '../../domain/kernel/permissions';
import { executeOrPark } from '../../domain/kernel/runner';
import { databaseUnavailable } from '../errors';
import { DATABASE_UNAVAILABLE } from '../unavailable';
import { operationForTool, TOOL_OPERATIONS, toolOf, type ToolNaming } from './tools';

/** What one MCP request learned, for its audit row. */
export type McpCall = { tool?: string; outcome?: 'refused' | 'parked' | 'failed'; reason?: string };

const json = (value: unknown) => ({ type: 'text' as const, text: JSON.stringify(value) });

// One message per refusal kind, whatever check failed (as at the REST door); the audit log has the reason.
const FORBIDDEN = 'This API key is not allowed to do this.';

/** A domain refusal as a tool result the model can act on: the code, the message, the field. */
function toolError(err: DomainError): CallToolResult {
  const message =
    err.code === 'forbidden' || err.code === 'unauthorized'
      ? FORBIDDEN
      : `${err.message}${typeof err.details.field === 'string' ? ` (field: ${err.details.field})` : ''}`;
  return {
    isError: true,
    content: [{ type: 'text', text: `${err.code}: ${message}` }],
  };
}

/**
 * A fault, not a refusal: its text goes to the audit row only. A database outage is a tool result
 * saying to retry (as REST answers 503); anything else a JSON-RPC internal error naming the request.
 */
function failure(err: unknown, call: McpCall, requestId: string | undefined): CallToolResult {
  call.outcome = 'failed';
  call.reason = (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 500);
  if (databaseUnavailable(err)) return toolError(new DomainError('unavailable', DATABASE_UNAVAILABLE));
  throw new McpError(
    ErrorCode.InternalError,
    `The service failed to handle this request (request id ${requestId ?? 'unknown'}).`,
  );
}

/**
 * A fresh MCP server for one HTTP request: its tools are the operations this key's scopes and its
 * owner's live role allow, and every call runs through the one runner as the key. A server shared
 * across requests once leaked answers between clients (GHSA-345p-7cg4-v4c7); this one lives and dies
 * with its request.
 */
export function buildMcpServer(opts: {
  services: Services;
  principal: Principal;
  actor: Actor;
  naming: ToolNaming;
  call: McpCall;
}): Server {
  const { services, principal, actor, naming, call } = opts;
  const offered = TOOL_OPERATIONS.filter((op) => refusalReason(principal, op.requirement) === undefined);
  const server = new Server(
    { name: 'lead-service', title: 'Lead service', version: '1.0.0' },
    {
      capabilities: { tools: {} },
      instructions:
        'Tools act in one workspace with this API key. Gated tools (connection.disconnect) park a request that a person must approve; nothing happens until then. Follow it with approval.get.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...offered].sort((a, b) => a.name.localeCompare(b.name)).map((op) => toolOf(op, naming)),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
    const op = operationForTool(req.params.name, offered);
    call.tool = op?.name ?? req.params.name.slice(0, 100);
    // An unlisted tool gets exactly the answer of an unknown one.
    if (!op) {
      call.outcome = 'refused';
      call.reason = `tool ${call.tool} is unknown or not allowed for this key`;
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${call.tool}`);
    }
    try {
      const result = await executeOrPark(services, op, actor, req.params.arguments ?? {});
      if ('parked' in result) {
        call.outcome = 'parked';
        const { status, approval_id, summary, expires_at } = result.parked;
        const pending = { status, approval_id, summary, expires_at };
        return {
          content: [
            {
              type: 'text',
              text: `Nothing has happened yet. "${summary}" must be approved by a person (an admin of the workspace) before it runs. Approval request ${approval_id} waits until ${expires_at}; check it with approval.get.`,
            },
            json(pending),
          ],
          structuredContent: pending,
        };
      }
      const output = result.output as Record<string, unknown>;
      return { content: [json(output)], structuredContent: output };
    } catch (err) {
      if (!(err instanceof DomainError)) return failure(err, call, actor.ctx.requestId);
      call.outcome = 'refused';
      call.reason = err.auditReason ?? err.message;
      return toolError(err);
    }
  });
  return server;
}
