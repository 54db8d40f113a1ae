import { classifyInboundRequest, isJsonContentType, ProtocolError } from '@modelcontextprotocol/server';
import type { RpcError, RpcId } from './errors';
import { isObject } from './requests';
import { callTool, declaresTasks, offeredTools, SERVER_INFO, type McpCallContext } from './server';
import { operationForTool } from './tools';

/** The request's content type and standard MCP headers, as sent (undefined when absent). */
export type StandardHeaders = {
  contentType?: string;
  protocolVersion?: string;
  method?: string;
  name?: string;
};

export type Classified = ReturnType<typeof classifyInboundRequest>;

/** The SDK's era decision for a parsed body (the one its own entry makes), read once per request. */
export const classify = (body: unknown, headers: StandardHeaders): Classified =>
  classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: headers.protocolVersion,
    mcpMethodHeader: headers.method,
    mcpNameHeader: headers.name,
    ...(body !== undefined && { body }),
  });

const PLAIN_PARAMS = new Set(['name', 'arguments', '_meta']);

/**
 * The assistant door's hot path: a well-formed 2026-07-28 `tools/call` of a tool this key is offered,
 * from a client without the tasks extension, answered without the SDK's per-request server. Building,
 * connecting and closing that server, validating the message again and speaking Web Request/Response
 * cost more than the read itself (bench/README.md). Such a request passes every check the SDK's entry
 * makes: its own classifier (the envelope, and the version and method headers against the body) and
 * `paramsProblem` and the mirrored `Mcp-Param-*` headers, in route.ts; its header rung (all three
 * standard headers present, `Mcp-Name` naming the tool as sent), here. The call runs through the same
 * `callTool` as the SDK's handler, and the answer is the bytes the SDK writes for it: the result
 * stamped `resultType: complete` with the server's identity in `_meta`, or the JSON-RPC error of a
 * fault. Anything else (another method, a tasks client, an unknown tool, a header the SDK would
 * decode or refuse, extra params) gets undefined, and the SDK answers it.
 */
export async function directToolCall(
  c: McpCallContext,
  route: Classified,
  headers: StandardHeaders,
  modernVersions: readonly string[],
): Promise<{ text: string; error?: RpcError } | undefined> {
  if (route.kind !== 'modern' || route.messageKind !== 'request') return undefined;
  const { message, classification } = route;
  if (message.method !== 'tools/call' || !modernVersions.includes(classification.revision ?? '')) return;
  if (!isJsonContentType(headers.contentType) || !headers.protocolVersion || !headers.method) return;
  const params = message.params as { name?: unknown; arguments?: unknown; _meta?: unknown } | undefined;
  if (!params || typeof params.name !== 'string' || headers.name !== params.name) return;
  if (Object.keys(params).some((k) => !PLAIN_PARAMS.has(k))) return;
  const args = params.arguments;
  if (args !== undefined && !isObject(args)) return;
  if (declaresTasks(params._meta)) return;
  const offered = offeredTools(c.principal);
  if (!operationForTool(params.name, offered)) return;

  const id: RpcId = message.id;
  try {
    const result = await callTool(
      c,
      offered,
      { name: params.name, arguments: args, _meta: params._meta },
      false,
    );
    const stamped = {
      ...result,
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
    };
    return { text: JSON.stringify({ result: stamped, jsonrpc: '2.0', id }) };
  } catch (err) {
    if (!(err instanceof ProtocolError)) throw err;
    const error: RpcError = {
      code: err.code,
      message: err.message,
      ...(err.data !== undefined && { data: err.data as Record<string, unknown> }),
    };
    return { text: JSON.stringify({ jsonrpc: '2.0', id, error }), error };
  }
}
