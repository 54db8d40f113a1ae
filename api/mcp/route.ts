/*
 * Two call paths, one behaviour. `direct.ts` answers the hot path (a well-formed current-revision
 * `tools/call`) without building an SDK server per request; everything else (initialize, lists, older
 * revisions, tasks, anything unusual) goes through the official SDK's server (`server.ts`). Both run the
 * tool through `callTool` in server.ts, so a change to what a tool does goes there; a change to what is
 * accepted on the wire goes in both, and test/integration/mcp-direct.test.ts holds them to the same answers.
 */
import { createMcpHandler, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Middleware, ParameterizedContext } from 'koa';
import { keyActor } from '../../domain/kernel/actor';
import type { AnyOperation, Services } from '../../domain/kernel/operation';
import { SCOPES, refusalReason, type Principal, type Scope } from '../../domain/kernel/permissions';
import type { RequestState } from '../context';
import { classify, directToolCall, type StandardHeaders } from './direct';
import { RPC, rpcError, type RpcError, type RpcId } from './errors';
import { mirroredHeaderMismatch } from './headers';
import { acceptsAnswers, paramsProblem } from './requests';
import { buildMcpServer, type McpCall, type McpCallContext } from './server';
import { TOOL_OPERATIONS, toolName } from './tools';

export const MCP_PATH = '/api/mcp';

/** The protocol revisions this endpoint serves: the current one, and the two before it that clients still speak. */
export const MCP_VERSIONS = { modern: ['2026-07-28'], legacy: ['2025-11-25', '2025-06-18'] } as const;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

const hostnameOf = (origin: string): string | undefined => {
  try {
    return new URL(origin).hostname.toLowerCase();
  } catch {
    return undefined;
  }
};

type Ctx = ParameterizedContext<RequestState>;

/** Answers a JSON-RPC error this door decides itself; the audit row says refused, with why. */
function refuse(ctx: Ctx, status: number, id: RpcId, error: RpcError, reason: string) {
  ctx.status = status;
  ctx.body = rpcError(id, error);
  ctx.state.auditOutcome = 'refused';
  ctx.state.auditReason = reason.slice(0, 500);
  ctx.state.refusal = 'protocol';
}

const idOf = (body: unknown): RpcId => {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
};

/**
 * Marks every request on the endpoint as the assistant door's, before anything can refuse it; where
 * assistants may connect over OAuth, a 401 there names the resource's metadata (RFC 9728), so a
 * client can discover where to get a token.
 */
export const mcpDoor =
  (resourceMetadataUrl?: string): Middleware<RequestState> =>
  async (ctx, next) => {
    if (ctx.path === MCP_PATH) {
      ctx.state.auditDoor = 'mcp';
      if (resourceMetadataUrl)
        ctx.state.bearerChallenge = `resource_metadata="${resourceMetadataUrl}", scope="${SCOPES.join(' ')}"`;
    }
    await next();
  };

/**
 * An assistant connection's call of a tool its member's role allows but its consent did not: 403 with
 * the scope it needs (RFC 6750's insufficient_scope), so the client can ask the member for more. A
 * key's call of the same tool finds no such tool, as before: a key's scopes are fixed where it was made.
 */
function insufficientScope(principal: Principal, op: AnyOperation | undefined): Scope | undefined {
  if (!principal.client || !op) return undefined;
  const scope = op.requirement.scope;
  if (scope === 'any' || principal.scopes.includes(scope)) return undefined;
  return refusalReason({ scopes: [scope], role: principal.role }, op.requirement) === undefined
    ? scope
    : undefined;
}

/**
 * The assistant door, `POST /api/mcp`: MCP over stateless Streamable HTTP with JSON answers, for
 * 2026-07-28 clients (per-request `_meta`, `server/discover`, checked `Mcp-*` headers; the SDK's v2
 * entry serves them, but for a plain `tools/call`, which `directToolCall` answers as the SDK would)
 * and for 2025-11-25 and 2025-06-18 clients (an `initialize` per connection, no session; the SDK's
 * stateless transport serves them). It sits behind the same key check, rate limit
 * and audit as REST. A browser page on a foreign site (DNS rebinding) is refused by its Origin.
 */
export function mcpRoute(
  services: Services,
  allowedOrigins: readonly string[],
  resourceMetadataUrl?: string,
): Middleware<RequestState> {
  const allowed = new Set(allowedOrigins.map((o) => hostnameOf(o)).filter((h): h is string => !!h));
  // The SDK builds a server per request from this factory; each request's context rides on its Request.
  const contexts = new WeakMap<Request, McpCallContext>();
  const modern = createMcpHandler(
    ({ requestInfo }) => buildMcpServer(contexts.get(requestInfo!)!, 'modern', MCP_VERSIONS.modern),
    // `auto` answers one JSON body unless a handler streams, and none here does.
    { legacy: 'reject' },
  );
  const legacy = async (request: Request, body: unknown, c: McpCallContext) => {
    const server = buildMcpServer(c, 'legacy', MCP_VERSIONS.legacy);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      return await transport.handleRequest(request, { parsedBody: body });
    } finally {
      await transport.close();
      await server.close();
    }
  };

  return async (ctx, next) => {
    if (ctx.path !== MCP_PATH) {
      await next();
      return;
    }
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      const message = 'Method not allowed: this endpoint is stateless and answers POST only.';
      refuse(ctx, 405, null, { code: RPC.refused, message }, `method ${ctx.method}`);
      return;
    }
    const origin = ctx.get('Origin');
    const host = origin ? hostnameOf(origin) : undefined;
    if (origin && (!host || !(LOOPBACK.has(host) || allowed.has(host)))) {
      const message = 'Forbidden: requests from this Origin are not accepted.';
      refuse(ctx, 403, null, { code: RPC.refused, message }, `foreign Origin ${origin.slice(0, 200)}`);
      return;
    }
    const body = ctx.state.body;
    // No revision served here has batches; refusing the array whole means none of its calls runs.
    if (Array.isArray(body)) {
      const message = 'Invalid Request: JSON-RPC batches are not supported; send one message per request.';
      ctx.state.auditAction = 'batch';
      refuse(ctx, 400, null, { code: RPC.invalidRequest, message }, `a JSON-RPC batch of ${body.length}`);
      return;
    }
    const rpcId = idOf(body);
    ctx.state.rpcId = rpcId;
    const message = body as { method?: unknown; params?: unknown } | null;
    const method = message?.method;
    ctx.state.auditAction = typeof method === 'string' ? method.slice(0, 100) : 'unknown';
    if (!acceptsAnswers(ctx.get('Accept') || undefined)) {
      const text = 'Not Acceptable: the client must accept both application/json and text/event-stream.';
      refuse(
        ctx,
        406,
        rpcId,
        { code: RPC.refused, message: text },
        `Accept: ${ctx.get('Accept').slice(0, 100)}`,
      );
      return;
    }
    // Nothing here changes under a client (the tool list is per key and fixed, there are no resources),
    // so there is nothing to listen for; a stream held open would also outlive the request deadline.
    if (method === 'subscriptions/listen') {
      refuse(ctx, 404, rpcId, { code: RPC.methodNotFound, message: 'Method not found' }, 'no subscriptions');
      return;
    }
    const problem = paramsProblem(method, message?.params);
    if (problem) {
      refuse(ctx, 200, rpcId, { code: RPC.invalidParams, message: problem }, problem);
      return;
    }
    const principal = ctx.state.principal!;
    const c: McpCallContext = {
      services,
      principal,
      actor: keyActor(principal, {
        door: 'mcp',
        requestId: ctx.state.requestId,
        clientIp: ctx.state.clientIp,
      }),
      naming: ctx.query.tool_names === 'underscore' ? 'underscore' : 'dotted',
      call: {},
    };
    const header = (name: string) => {
      const value = ctx.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    const standard: StandardHeaders = {
      contentType: header('content-type'),
      protocolVersion: header('mcp-protocol-version'),
      method: header('mcp-method'),
      name: header('mcp-name'),
    };
    // What the SDK's `isLegacyRequest` decides, from the body already parsed: no body, or a legacy route.
    const route = classify(body, standard);
    const isLegacy = body === undefined || route.kind === 'legacy';
    // A 2025 client names its version on every request after `initialize`; one that does not speaks
    // 2025-03-26 or older, which this endpoint does not serve.
    if (isLegacy && method !== 'initialize' && rpcId !== null && !ctx.get('MCP-Protocol-Version')) {
      const text = `Bad Request: the MCP-Protocol-Version header is required (supported versions: ${[...MCP_VERSIONS.modern, ...MCP_VERSIONS.legacy].join(', ')}).`;
      refuse(ctx, 400, rpcId, { code: RPC.refused, message: text }, 'no MCP-Protocol-Version header');
      return;
    }
    if (method === 'tools/call') {
      const name = (body as { params?: { name?: unknown } }).params?.name;
      const needed = insufficientScope(
        principal,
        TOOL_OPERATIONS.find((o) => toolName(o, c.naming) === name),
      );
      if (needed) {
        const text = `Forbidden: this connection was not granted the scope ${needed}; ask the member to grant it.`;
        ctx.set(
          'WWW-Authenticate',
          `Bearer error="insufficient_scope", scope="${needed}"${resourceMetadataUrl ? `, resource_metadata="${resourceMetadataUrl}"` : ''}, error_description="the scope ${needed} is needed"`,
        );
        refuse(ctx, 403, rpcId, { code: RPC.refused, message: text }, `connection lacks scope ${needed}`);
        ctx.state.auditAction = String(name).slice(0, 100);
        return;
      }
    }
    if (!isLegacy && method === 'tools/call') {
      const params = (body as { params?: { name?: unknown; arguments?: unknown } }).params;
      // Only a tool called by the name this URL lists has declared its mirrored arguments to the client.
      const op = TOOL_OPERATIONS.find((o) => toolName(o, c.naming) === params?.name);
      const mismatch = op && mirroredHeaderMismatch(op, params?.arguments, (h) => ctx.get(h) || undefined);
      if (mismatch) {
        const message = `Bad Request: the request headers and body disagree: ${mismatch}`;
        refuse(ctx, 400, rpcId, { code: -32020, message }, mismatch);
        return;
      }
    }
    const direct = isLegacy ? undefined : await directToolCall(c, route, standard, MCP_VERSIONS.modern);
    if (direct) {
      ctx.status = 200;
      // As the SDK labels it (Koa's `ctx.type` would add a charset).
      ctx.set('Content-Type', 'application/json');
      ctx.body = direct.text;
      if (c.call.tool) ctx.state.auditAction = c.call.tool;
      recordCall(ctx, c.call, direct.error);
      return;
    }
    const headers = new Headers();
    for (const name of Object.keys(ctx.headers)) {
      const value = header(name);
      if (value !== undefined) headers.set(name, value);
    }
    const request = new Request(new URL(ctx.originalUrl, 'http://mcp.local'), { method: 'POST', headers });
    let response: Response;
    if (isLegacy) response = await legacy(request, body, c);
    else {
      contexts.set(request, c);
      response = await modern.fetch(request, { parsedBody: body });
    }
    ctx.status = response.status;
    response.headers.forEach((value, name) => {
      if (name !== 'content-length') ctx.set(name, value);
    });
    const text = await response.text();
    const json = /^application\/json\b/.test(response.headers.get('content-type') ?? '');
    if (text && !json) {
      // Not expected (every answer here is one JSON body), but never broken on its way out.
      ctx.body = text;
      return;
    }
    if (c.call.tool) ctx.state.auditAction = c.call.tool;
    // A result the SDK wrote (it puts `result` first; an error's id may need mending, a task's content
    // dropping) that was not parked goes out as the SDK wrote it, not parsed and written again.
    if (c.call.outcome !== 'parked' && text.startsWith('{"result":')) {
      ctx.body = text;
      recordCall(ctx, c.call, undefined);
      return;
    }
    const answer = text
      ? (JSON.parse(text) as { id?: RpcId; error?: RpcError; result?: Record<string, unknown> })
      : undefined;
    // The SDK's transport answers some refusals before it reads the id; every error here carries it.
    if (answer?.error && answer.id === null) answer.id = rpcId;
    // The SDK gives every tools/call result CallToolResult's empty `content`; a task (the tasks
    // extension's CreateTaskResult) has none.
    if (answer?.result?.resultType === 'task') delete answer.result.content;
    if (answer) ctx.body = answer;
    recordCall(ctx, c.call, answer?.error);
  };
}

/** What the audit row and the metrics learn from a call: the tool, its outcome, and why. */
function recordCall(ctx: Ctx, call: McpCall, error: RpcError | undefined) {
  if (call.outcome) ctx.state.auditOutcome = call.outcome;
  else if (error) ctx.state.auditOutcome = error.code === RPC.internalError ? 'failed' : 'refused';
  ctx.state.dbError ??= call.dbError;
  if (call.code) ctx.state.refusal = call.code;
  else if (ctx.state.auditOutcome === 'refused') ctx.state.refusal = 'protocol';
  const reason = call.reason ?? error?.message;
  if (reason && ctx.state.auditOutcome) ctx.state.auditReason = reason.slice(0, 500);
}
