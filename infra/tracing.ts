import { Resource } from '@opentelemetry/resources';
import { NoopSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import { SimplePlugin } from '@temporalio/plugin';
import type { ReplayWorkerOptions, WorkerOptions } from '@temporalio/worker';
import type { Config } from './config';

/**
 * OpenTelemetry for the service (docs/observability.md, "Traces"): one trace follows a request through
 * its operation, the outbox row, the relay, the workflow and its activities, to the receiver's POST.
 *
 * The SDK is loaded and registered only when an exporter is configured (`OTEL_EXPORTER_OTLP_ENDPOINT`);
 * otherwise OpenTelemetry's API answers every span with its no-op. The Temporal plugin is installed
 * either way, on every worker, so what a workflow does never depends on this process's configuration:
 * its spans are decided by the run's own history (workflows/tracing.ts), and a history replays the same
 * whether a process exports or not (test/integration/replay.test.ts).
 */

type Tracing = { processor: SpanProcessor; resource: Resource };
let tracing: Tracing | undefined;

async function exporterFor(settings: NonNullable<Config['tracing']>): Promise<SpanExporter> {
  // Each exporter also reads the standard OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT and _COMPRESSION.
  switch (settings.protocol) {
    case 'grpc':
      return new (await import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter({
        url: settings.url,
      });
    case 'http/json':
      return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter({
        url: settings.url,
      });
    case 'http/protobuf':
      return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter({
        url: settings.url,
      });
  }
}

/**
 * Starts this process's tracing, once (the API and the worker share it when one process runs both);
 * later calls keep the first settings. Without settings nothing is registered and no span is made.
 */
export async function startTracing(settings: Config['tracing'], role: string): Promise<void> {
  if (tracing) return;
  const resource = new Resource({
    ...settings?.resourceAttributes,
    'service.name': settings?.serviceName ?? `lead-service-${role}`,
  });
  if (!settings) {
    tracing = { processor: new NoopSpanProcessor(), resource };
    return;
  }
  const [{ NodeSDK }, { BatchSpanProcessor }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/sdk-trace-base'),
  ]);
  const processor = new BatchSpanProcessor(await exporterFor(settings));
  // NodeSDK registers the provider, the W3C trace-context and baggage propagators and an
  // AsyncLocalStorage context manager; no automatic instrumentation: the service makes its own spans.
  const sdk = new NodeSDK({ resource, spanProcessors: [processor], autoDetectResources: false });
  sdk.start();
  tracing = { processor, resource };
}

/** Sends the spans still buffered: at shutdown, and by tests before they read their receiver. */
export async function flushTracing(): Promise<void> {
  await tracing?.processor.forceFlush();
}

/**
 * The Temporal SDK's side: `@temporalio/interceptors-opentelemetry`'s client and activity interceptors
 * and its sink that carries workflow spans out of the sandbox to `processor` (this process's exporter by
 * default), with the service's own workflow interceptors (workflows/tracing.ts, which says why). Given to
 * every worker, replay worker and client that starts workflows; the prebuilt bundle carries the workflow
 * module (worker/bundle-workflows.ts), and a worker that bundles itself gets it from here.
 */
export function temporalTracing(processor?: SpanProcessor): SimplePlugin {
  return new TracingPlugin(
    makeWorkflowExporter(
      processor ?? tracing?.processor ?? new NoopSpanProcessor(),
      tracing?.resource ?? new Resource({}),
    ),
  );
}

/** The workflow interceptors' module, which a prebuilt workflow bundle must carry. */
export const WORKFLOW_TRACING_MODULE = require.resolve('../workflows/tracing');

class TracingPlugin extends SimplePlugin {
  constructor(private readonly exporter: ReturnType<typeof makeWorkflowExporter>) {
    const client = new OpenTelemetryWorkflowClientInterceptor();
    super({
      name: 'lead-service-tracing',
      clientInterceptors: { workflow: [client] },
      workerInterceptors: {
        client: { workflow: [client] },
        workflowModules: [WORKFLOW_TRACING_MODULE],
        activity: [
          (ctx) => ({
            inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
            outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
        ],
      },
    });
  }

  override configureWorker(options: WorkerOptions): WorkerOptions {
    return super.configureWorker({ ...options, sinks: { ...options.sinks, exporter: this.exporter } });
  }

  override configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    return super.configureReplayWorker({ ...options, sinks: { ...options.sinks, exporter: this.exporter } });
  }
}
