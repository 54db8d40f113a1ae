import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Middleware } from 'koa';
import { keyActor } from '../../domain/kernel/actor';
import type { Services } from '../../domain/kernel/operation';
import type { RequestState } from '../context';
import { buildMcpServer, type McpCall } from './server';

export const MCP_PATH = '/api/mcp';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

const hostnameOf = (origin: string): string | undefined => {
  try {
    return new URL(origin).hostname.toLowerCase();
  } catch {
    return undefined;
  }
};

const rpcError = (status: number, code: number, message: string) => ({
  status,
  body: { jsonrpc: '2.0', error: { code, message }, id: null },
});

/**
 * The assistant door, `POST /api/mcp`: MCP over stateless Streamable HTTP with JSON answers. It sits
 * behind the same key check, rate limit and audit as REST. A browser page on a foreign site
 * (DNS rebinding) is refused by its Origin; servers send none.
 */
export function mcpRoute(services: Services, allowedOrigins: readonly string[]): Middleware<RequestState> {
  const allowed = new Set(allowedOrigins.map((o) => hostnameOf(o)).filter((h): h is string => !!h));
  return async (ctx, next) => {
    if (ctx.path !== MCP_PATH) {
      await next();
      return;
    }
    ctx.state.auditDoor = 'mcp';
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      const refusal = rpcError(
        405,
        -32000,
        'Method not allowed: this endpoint is stateless and answers POST only.',
      );
      ctx.status = refusal.status;
      ctx.body = refusal.body;
      return;
    }
    const origin = ctx.get('Origin');
    const host = origin ? hostnameOf(origin) : undefined;
    if (origin && (!host || !(LOOPBACK.has(host) || allowed.has(host)))) {
      ctx.state.auditReason = `foreign Origin ${origin.slice(0, 200)}`;
      const refusal = rpcError(403, -32000, 'Forbidden: requests from this Origin are not accepted.');
      ctx.status = refusal.status;
      ctx.body = refusal.body;
      return;
    }
    const body = ctx.state.body as { method?: unknown } | undefined;
    const call: McpCall = {};
    const principal = ctx.state.principal!;
    const server = buildMcpServer({
      services,
      principal,
      actor: keyActor(principal, {
        door: 'mcp',
        requestId: ctx.state.requestId,
        clientIp: ctx.state.clientIp,
      }),
      naming: ctx.query.tool_names === 'underscore' ? 'underscore' : 'dotted',
      call,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      const request = new Request(new URL(ctx.originalUrl, 'http://mcp.local'), {
        method: 'POST',
        headers: Object.entries(ctx.headers).flatMap(([k, v]) =>
          v === undefined ? [] : ([[k, Array.isArray(v) ? v.join(', ') : v]] as [string, string][]),
        ),
      });
      const response = await transport.handleRequest(request, { parsedBody: ctx.state.body });
      ctx.status = response.status;
      response.headers.forEach((value, name) => {
        if (name !== 'content-length') ctx.set(name, value);
      });
      const text = await response.text();
      if (text) ctx.body = JSON.parse(text) as unknown;
    } finally {
      await transport.close();
      await server.close();
    }
    const method = typeof body?.method === 'string' ? body.method.slice(0, 100) : 'unknown';
    ctx.state.auditAction = call.tool ?? method;
    if (call.outcome) ctx.state.auditOutcome = call.outcome;
    if (call.reason) ctx.state.auditReason = call.reason;
  };
}
