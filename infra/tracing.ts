import { Resource } from '@opentelemetry/resources';
import { NoopSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import type { Config } from './config';

/**
 * OpenTelemetry for the service (docs/observability.md, "Traces"): one trace follows a request through
 * its operation, the outbox row, the relay, the workflow and its activities, to the receiver's POST.
 *
 * The SDK is loaded and registered only when an exporter is configured (`OTEL_EXPORTER_OTLP_ENDPOINT`);
 * otherwise OpenTelemetry's API answers every span with its no-op. The Temporal plugin is installed
 * either way: its workflow interceptors draw span ids from the workflow's seeded random source, which
 * the retry ladder's jitter also draws from, so a history replays the same whether a process exports
 * or not (test/integration/replay.test.ts).
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
 * The Temporal SDK's side (client, activity and workflow interceptors, and the sink that carries the
 * workflow's spans out of its sandbox to `processor`, this process's exporter by default): given to
 * every worker, replay worker and client that starts workflows.
 */
export function temporalTracing(processor?: SpanProcessor): OpenTelemetryPlugin {
  return new OpenTelemetryPlugin({
    resource: tracing?.resource ?? new Resource({}),
    spanProcessor: processor ?? tracing?.processor ?? new NoopSpanProcessor(),
  });
}

/** The module a prebuilt workflow bundle must carry for the plugin's workflow interceptors. */
export const WORKFLOW_TRACING_MODULE =
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');
