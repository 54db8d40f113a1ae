import type { Middleware } from 'koa';
import { contextFrom, failSpan, inSpan, SpanKind } from '../../domain/kernel/tracing';
import { loggedPath, type RequestState } from '../context';

/**
 * Every request is a server span: it continues the caller's W3C `traceparent` (and `tracestate`), or
 * starts a trace. The span is named by its route (`GET /api/v1/leads/:id`), never by the path a caller
 * typed, which may hold a public page's token; it carries the request id the response and audit show.
 */
export const traced = (): Middleware<RequestState> => (ctx, next) =>
  inSpan(
    ctx.method,
    {
      kind: SpanKind.SERVER,
      parent: contextFrom({ traceparent: ctx.get('traceparent'), tracestate: ctx.get('tracestate') }),
      attributes: { 'http.request.method': ctx.method },
    },
    async (span) => {
      try {
        await next();
      } finally {
        const route = loggedPath(ctx);
        span.updateName(`${ctx.method} ${route}`);
        span.setAttributes({
          'http.route': route,
          'http.response.status_code': ctx.status,
          ...(ctx.state.requestId && { 'request.id': ctx.state.requestId }),
        });
        if (ctx.status >= 500) failSpan(span, String(ctx.status));
      }
    },
  );
