import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** Serves a Koa callback on a loopback port, for clients that need a URL (the MCP SDKs'). */
export async function serve(callback: (req: http.IncomingMessage, res: http.ServerResponse) => unknown) {
  const server = http.createServer((req, res) => void callback(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every protocol revision the endpoint claims; the tests run each client at each. */
export const MCP_VERSIONS = ['2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type McpVersion = (typeof MCP_VERSIONS)[number];
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

type ToolResult = {
  content: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
  resultType?: string;
};
type Listed = { name: string; outputSchema?: object };

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

/**
 * Holds a tool result to the tool's own `outputSchema`, as every REST answer is held to the OpenAPI
 * document: `structuredContent` matches it and the text block carries the same JSON; a tool error
 * carries a message and no structured answer.
 */
export function checkToolResult(tool: Listed, result: ToolResult): void {
  if (result.isError) {
    assert.equal(result.structuredContent, undefined, `${tool.name}: a tool error has no structured answer`);
    assert.ok(result.content[0]?.text, `${tool.name}: a tool error says why`);
    return;
  }
  assert.ok(tool.outputSchema, `${tool.name} declares an outputSchema`);
  const validate = ajv.compile(tool.outputSchema);
  assert.ok(
    validate(result.structuredContent),
    `${tool.name}: the result breaks its outputSchema: ${ajv.errorsText(validate.errors)}`,
  );
  const same = JSON.stringify(result.structuredContent);
  assert.ok(
    result.content.some((c) => c.type === 'text' && c.text === same),
    `${tool.name}: the same JSON as text`,
  );
}

/**
 * The official MCP TypeScript client (v2) over Streamable HTTP with a bearer key, at one protocol
 * revision: 2026-07-28 pinned (no handshake, per-request `_meta`), or a 2025 revision through its
 * `initialize`. `tasks` declares the tasks extension. `call` checks every result it returns.
 */
export async function mcpClient(
  url: string,
  key: string,
  opts: { protocolVersion: McpVersion; query?: string; tasks?: boolean },
) {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/api/mcp${opts.query ?? ''}`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  const modern = opts.protocolVersion === '2026-07-28';
  const client = new Client(
    { name: 'lead-service-tests', version: '1.0.0' },
    {
      supportedProtocolVersions: [opts.protocolVersion],
      ...(modern ? { versionNegotiation: { mode: { pin: opts.protocolVersion } } } : {}),
      capabilities: opts.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {},
    },
  );
  await client.connect(transport);
  let listed: Listed[] | undefined;
  /** Calls a tool and checks its result against the listed outputSchema. */
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    listed ??= (await client.listTools()).tools as Listed[];
    const result = (await client.callTool({ name, arguments: args })) as ToolResult;
    const plain = (n: string) => n.replace('.', '_');
    const tool = listed.find((t) => plain(t.name) === plain(name));
    assert.ok(tool, `${name} is listed`);
    checkToolResult(tool, result);
    return result;
  };
  return { client, transport, call };
}

/** A tool result's structured answer, typed by the caller. */
export const structured = <T>(result: ToolResult) => result.structuredContent as T;
/** A tool result's first text block. */
export const textOf = (result: ToolResult) => result.content[0]?.text ?? '';

/**
 * One raw JSON-RPC request at 2026-07-28, as a client of the tasks extension sends it (the official
 * TypeScript client refuses a `resultType: "task"` answer, so task flows are driven by hand): the
 * `_meta` envelope, and the `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers.
 */
export async function rpc(
  url: string,
  key: string,
  method: string,
  params: Record<string, unknown> = {},
  opts: RpcOptions = {},
) {
  const res = await rpcResponse(url, key, method, params, opts);
  const body = (await res.json()) as {
    result?: Record<string, unknown>;
    error?: { code: number; message: string };
  };
  return { status: res.status, ...body };
}

type RpcOptions = {
  tasks?: boolean;
  headers?: Record<string, string>;
  id?: number | string;
  /** More `_meta` (an assistant's `traceparent`). */
  meta?: Record<string, unknown>;
};

/** The HTTP response to one such request, as it came. */
export function rpcResponse(
  url: string,
  key: string,
  method: string,
  params: Record<string, unknown> = {},
  opts: RpcOptions = {},
): Promise<Response> {
  const name =
    method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined;
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  return fetch(`${url}/api/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      ...(typeof args.leadId === 'string' ? { 'mcp-param-lead-id': args.leadId } : {}),
      ...opts.headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: opts.id ?? 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'lead-service-tests', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': opts.tasks
            ? { extensions: { [TASKS_EXTENSION]: {} } }
            : {},
          ...opts.meta,
        },
      },
    }),
  });
}

/** A task as the tasks extension carries it. */
export type TaskAnswer = {
  resultType: string;
  taskId: string;
  status: 'working' | 'completed' | 'failed' | 'cancelled';
  statusMessage: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  result?: ToolResult;
  error?: { code: number; message: string; data?: Record<string, unknown> };
};
