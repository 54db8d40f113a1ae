/**
 * The workflow side of tracing (docs/observability.md, "Traces"), in the sandbox: a `RunWorkflow:<type>`
 * span for a run whose start carried trace context, a `StartActivity:<type>` span around each activity
 * it schedules, and the context passed on in each activity's headers, in the header
 * `@temporalio/interceptors-opentelemetry`'s client and activity interceptors write and read
 * (`_tracer-data`, a JSON payload holding `traceparent`). Finished spans leave through that package's
 * `exporter` sink, which hands them to the worker's span processor.
 *
 * Written here rather than taken from that package: its workflow interceptors run the OpenTelemetry SDK
 * inside every workflow, with an AsyncLocalStorage each, which doubled the worker's CPU per delivery and
 * added about 90 MiB at 2,000 parked deliveries even with nothing exported (docs/decisions/runtime.md).
 *
 * Deterministic: a span is made only when the run's own headers (in its history) carry a context, and
 * its ids come from the workflow's seeded Math.random; so a history replays the same on a worker that
 * exports and on one that does not. A run started untraced draws nothing and sends nothing.
 */
import {
  ContinueAsNew,
  defaultPayloadConverter,
  proxySinks,
  workflowInfo,
  type ActivityInput,
  type ContinueAsNewInput,
  type LocalActivityInput,
  type Next,
  type Payload,
  type SignalInput,
  type Sinks,
  type UpdateInput,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

const TRACE_HEADER = '_tracer-data';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
// OpenTelemetry's SpanKind and SpanStatusCode values.
const SERVER = 1;
const CLIENT = 2;
const OK = 1;
const ERROR = 2;

type HrTime = [number, number];
type SpanContext = { traceId: string; spanId: string; traceFlags: number; traceState?: string };

/** A finished span, as the package's exporter sink takes it (its `makeSerializable` shape). */
type SerializedSpan = {
  name: string;
  kind: number;
  spanContext: SpanContext & { isRemote: false };
  parentSpanId: string;
  startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  status: { code: number; message?: string };
  attributes: Record<string, string>;
  links: [];
  events: [];
  ended: true;
  droppedAttributesCount: 0;
  droppedEventsCount: 0;
  droppedLinksCount: 0;
  instrumentationLibrary: { name: string };
};

type TracingSinks = Sinks & {
  exporter: { export(spans: SerializedSpan[]): void };
};

const { exporter } = proxySinks<TracingSinks>();

/** The trace context a payload of the package's header carries, if any. */
function contextIn(headers: Record<string, Payload>): SpanContext | undefined {
  const payload = headers[TRACE_HEADER];
  if (!payload) return undefined;
  const carrier = defaultPayloadConverter.fromPayload<{ traceparent?: unknown; tracestate?: unknown }>(
    payload,
  );
  const m = typeof carrier?.traceparent === 'string' ? TRACEPARENT.exec(carrier.traceparent) : null;
  if (!m || /^0+$/.test(m[1]!) || /^0+$/.test(m[2]!)) return undefined;
  return {
    traceId: m[1]!,
    spanId: m[2]!,
    traceFlags: parseInt(m[3]!, 16),
    ...(typeof carrier.tracestate === 'string' && { traceState: carrier.tracestate }),
  };
}

/** `bytes` random bytes in hex, from the workflow's seeded (replayed) random source. */
const randomHex = (bytes: number) =>
  Array.from({ length: bytes }, () =>
    Math.floor(Math.random() * 256)
      .toString(16)
      .padStart(2, '0'),
  ).join('');

/** Workflow time (the task's, deterministic) as OpenTelemetry's [seconds, nanoseconds]. */
const hrNow = (): HrTime => {
  const ms = Date.now();
  return [Math.floor(ms / 1000), (ms % 1000) * 1e6];
};

class Span {
  readonly context: SpanContext;
  private readonly start = hrNow();

  constructor(
    private readonly name: string,
    private readonly kind: number,
    private readonly parent: SpanContext,
    private readonly attributes: Record<string, string> = {},
  ) {
    this.context = {
      traceId: parent.traceId,
      spanId: randomHex(8),
      traceFlags: parent.traceFlags,
      ...(parent.traceState !== undefined && { traceState: parent.traceState }),
    };
  }

  /** The header that hands this span's context on (to an activity, a continued run). */
  header(headers: Record<string, Payload>): Record<string, Payload> {
    const { traceId, spanId, traceFlags, traceState } = this.context;
    const carrier = {
      traceparent: `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`,
      ...(traceState !== undefined && { tracestate: traceState }),
    };
    return { ...headers, [TRACE_HEADER]: defaultPayloadConverter.toPayload(carrier) };
  }

  /** Ends the span and sends it out (never while replaying: the SDK drops sink calls then). */
  end(error?: unknown): void {
    const endTime = hrNow();
    const ns = (t: HrTime) => t[0] * 1e9 + t[1];
    const duration = ns(endTime) - ns(this.start);
    exporter.export([
      {
        name: this.name,
        kind: this.kind,
        spanContext: { ...this.context, isRemote: false },
        parentSpanId: this.parent.spanId,
        startTime: this.start,
        endTime,
        duration: [Math.floor(duration / 1e9), duration % 1e9],
        status:
          error === undefined
            ? { code: OK }
            : { code: ERROR, message: error instanceof Error ? error.message : 'failed' },
        attributes: this.attributes,
        links: [],
        events: [],
        ended: true,
        droppedAttributesCount: 0,
        droppedEventsCount: 0,
        droppedLinksCount: 0,
        instrumentationLibrary: { name: '@temporalio/interceptor-workflow' },
      },
    ]);
  }

  /** Runs `fn` as this span's work, ending it with fn's outcome. */
  async around<T>(fn: () => Promise<T>, ok: (err: unknown) => boolean = () => false): Promise<T> {
    try {
      const result = await fn();
      this.end();
      return result;
    } catch (err) {
      this.end(ok(err) ? undefined : err);
      throw err;
    }
  }
}

/** One run's spans: the run's own, under which its activities' are made. */
class RunTracing implements WorkflowInboundCallsInterceptor, WorkflowOutboundCallsInterceptor {
  private run: Span | undefined;

  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>) {
    const parent = contextIn(input.headers);
    if (!parent) return next(input);
    const info = workflowInfo();
    this.run = new Span(`RunWorkflow:${info.workflowType}`, SERVER, parent, { run_id: info.runId });
    // Continued as new is how a long run goes on, not a failure.
    return this.run.around(
      () => next(input),
      (err) => err instanceof ContinueAsNew,
    );
  }

  handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>) {
    const parent = contextIn(input.headers);
    if (!parent) return next(input);
    return new Span(`HandleSignal:${input.signalName}`, SERVER, parent).around(() => next(input));
  }

  handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>) {
    const parent = contextIn(input.headers);
    if (!parent) return next(input);
    return new Span(`HandleUpdate:${input.name}`, SERVER, parent, {
      temporalUpdateId: input.updateId,
    }).around(() => next(input));
  }

  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) {
    if (!this.run) return next(input);
    const span = new Span(`StartActivity:${input.activityType}`, CLIENT, this.run.context);
    return span.around(() => next({ ...input, headers: span.header(input.headers) }));
  }

  scheduleLocalActivity(
    input: LocalActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>,
  ) {
    if (!this.run) return next(input);
    const span = new Span(`StartActivity:${input.activityType}`, CLIENT, this.run.context);
    return span.around(() => next({ ...input, headers: span.header(input.headers) }));
  }

  continueAsNew(input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>) {
    return next(this.run ? { ...input, headers: this.run.header(input.headers) } : input);
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  const run = new RunTracing();
  return { inbound: [run], outbound: [run] };
};
