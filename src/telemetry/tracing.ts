/**
 * OpenTelemetry tracing for one process: a tracer provider registered globally (so Temporal's
 * interceptors and Baton's A2A spans find it), W3C trace context as the propagator, spans batched
 * to an OTLP/HTTP receiver. Off unless `telemetry.traces` or the standard OTLP variables say where.
 */
import { context, diag, DiagLogLevel, propagation, trace, type Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { TelemetryConfig } from '../config/schema';

export interface Tracing {
  /** The process's `service.name`. */
  serviceName: string;
  resource: Resource;
  /** Where the worker's workflow spans go too (they leave the sandbox through a sink). */
  spanProcessor: SpanProcessor;
  /** Sends what is buffered (tests read spans back); never fails: an unreachable receiver is a warning. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

let active: (Tracing & { url: string }) | undefined;
const services = new Map<string, { provider: BasicTracerProvider; tracer: Tracer }>();

/** Where spans go, or undefined when tracing is off (nothing configured, or `OTEL_SDK_DISABLED`/`OTEL_TRACES_EXPORTER=none`). */
export function tracesEndpoint(telemetry: TelemetryConfig | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return undefined;
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT ?? telemetry?.traces?.endpoint;
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

function processorFor(url: string): SpanProcessor {
  // Small batches sent often: a delegation's spans should be readable a second after it settles.
  return new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 500, maxExportBatchSize: 256 });
}

/**
 * Starts tracing for this process, once (a second call returns the first one's). `role` names the
 * process when neither `telemetry.traces.serviceName` nor `OTEL_SERVICE_NAME` does: `baton-<role>`.
 */
export function startTracing(telemetry: TelemetryConfig | undefined, role: string, logger?: Logger): Tracing | undefined {
  if (active) return active;
  const url = tracesEndpoint(telemetry);
  if (!url) return undefined;
  const failed = logger ? reportExportErrors(logger, url) : () => {};
  const serviceName = process.env.OTEL_SERVICE_NAME ?? telemetry?.traces?.serviceName ?? `baton-${role}`;
  const resource = new Resource({ 'service.name': serviceName });
  const spanProcessor = processorFor(url);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  active = {
    url,
    serviceName,
    resource,
    spanProcessor,
    // A receiver that cannot be reached fails the flush; the warning above said so, and a command
    // must not fail for its traces.
    flush: async () => {
      await provider.forceFlush().catch(failed);
      for (const s of services.values()) await s.provider.forceFlush().catch(failed);
    },
    shutdown: async () => {
      for (const s of services.values()) await s.provider.shutdown().catch(failed);
      services.clear();
      await provider.shutdown().catch(failed);
      trace.disable();
      context.disable();
      propagation.disable();
      diag.disable();
      active = undefined;
    },
  };
  return active;
}

/**
 * OpenTelemetry reports a receiver it cannot reach through its diagnostic logger, silent unless set,
 * and a flush by rejecting: each distinct error goes to `logger` as a warning, at most once a minute
 * (a batch leaves every half second), and spans that could not be sent are dropped.
 */
function reportExportErrors(logger: Logger, url: string): (err: unknown) => void {
  const said = new Map<string, number>();
  const warn = (message: string): void => {
    const now = Date.now();
    if ((said.get(message) ?? 0) > now - 60_000) return;
    said.set(message, now);
    logger.warn({ traces: url }, `traces could not be exported: ${message}`);
  };
  // The exporter hands over an error as JSON text (its stack included): keep its message.
  const readable = (x: unknown): string => {
    if (Array.isArray(x)) return x.map(readable).join('; ');
    if (x instanceof Error) return x.message;
    if (typeof x !== 'string') return String(x);
    try {
      const parsed = JSON.parse(x) as { message?: unknown };
      return typeof parsed.message === 'string' ? parsed.message : x;
    } catch {
      return x;
    }
  };
  const text = (m: string, args: unknown[]): string => [m, ...args].map(readable).join(' ').slice(0, 300);
  diag.setLogger(
    { error: (m, ...a) => warn(text(m, a)), warn: (m, ...a) => warn(text(m, a)), info: () => {}, debug: () => {}, verbose: () => {} },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  // What a flush or shutdown rejects with (the scheduled exports report through diag).
  return (err) => warn(readable(err).slice(0, 300));
}

/** This process's tracing, when it was started. */
export function activeTracing(): Tracing | undefined {
  return active;
}

/**
 * A tracer that reports as another service from this process (the demo agents run beside Baton in
 * `baton dev` and in tests, and their spans should read as the agent's own). Undefined when tracing is off.
 */
export function serviceTracer(serviceName: string): Tracer | undefined {
  if (!active) return undefined;
  let entry = services.get(serviceName);
  if (!entry) {
    const provider = new BasicTracerProvider({
      resource: new Resource({ 'service.name': serviceName }),
      spanProcessors: [processorFor(active.url)],
    });
    entry = { provider, tracer: provider.getTracer('baton-demo-agent') };
    services.set(serviceName, entry);
  }
  return entry.tracer;
}
