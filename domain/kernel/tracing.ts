import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';

/**
 * Spans through OpenTelemetry's API only: with no SDK registered (tracing off, see infra/tracing.ts)
 * every call here answers the API's no-op, so the code that makes spans never asks whether it is on.
 */

const tracer = () => trace.getTracer('lead-service');

/** Runs `fn` in a new span (a child of the active one, or of `parent`), ended with fn's outcome. */
export function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; parent?: Context; links?: Link[] },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      ...(options.attributes && { attributes: options.attributes }),
      ...(options.links && { links: options.links }),
    },
    options.parent ?? context.active(),
    async (span) => {
      try {
        return await fn(span);
      } catch (err) {
        span.recordException(err instanceof Error ? err : String(err));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/** A link to the active span, for a span that continues another trace (an MCP call's `_meta`). */
export function activeSpanLinks(): Link[] {
  const active = trace.getSpanContext(context.active());
  return active && trace.isSpanContextValid(active) ? [{ context: active }] : [];
}

/** Marks a span failed with a short reason (an HTTP status, a provider's refusal): no exception to record. */
export function failSpan(span: Span, reason: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
}

/**
 * The active span's W3C `traceparent`, stored with an outbox row so the work it starts later (in
 * another process) continues the trace; null when nothing is traced.
 */
export function activeTraceparent(): string | null {
  return traceHeaders().traceparent ?? null;
}

/** The context a received or stored `traceparent` (and `tracestate`) continues; the root when absent. */
export function contextFrom(carrier: { traceparent?: unknown; tracestate?: unknown }): Context {
  const headers: Record<string, string> = {};
  if (typeof carrier.traceparent === 'string') headers.traceparent = carrier.traceparent;
  if (typeof carrier.tracestate === 'string') headers.tracestate = carrier.tracestate;
  return propagation.extract(ROOT_CONTEXT, headers);
}

/** The active span's `traceparent` (and `tracestate`), for an outgoing request's headers. */
export function traceHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  propagation.inject(context.active(), headers);
  return headers;
}

export { SpanKind };
