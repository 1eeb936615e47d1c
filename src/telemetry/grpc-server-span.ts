/**
 * The served agents' gRPC service with a server span per call, continuing the caller's trace from
 * its `traceparent`/`tracestate` metadata, as `traceRequests` does for the HTTP bindings. The call's
 * handling runs in the span's context, so the task's workflow joins the caller's trace.
 */
import type * as grpc from '@grpc/grpc-js';
import { context, propagation, SpanKind, SpanStatusCode, trace, type TextMapGetter } from '@opentelemetry/api';
import { recordServedRequest } from './metrics';

const fromMetadata: TextMapGetter<grpc.Metadata> = {
  get: (m, key) => m.get(key).map(String),
  keys: (m) => Object.keys(m.getMap()),
};

type Handler = (
  call: { metadata: grpc.Metadata } & Partial<NodeJS.EventEmitter>,
  callback?: (err: grpc.ServiceError | null, value?: unknown) => void,
) => void;

/** `impl` with each method traced; `SendMessage` for `sendMessage`. */
export function traceGrpcService<T extends object>(impl: T): T {
  const traced: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(impl)) {
    if (typeof fn !== 'function') {
      traced[name] = fn;
      continue;
    }
    const method = name.charAt(0).toUpperCase() + name.slice(1);
    const handler: Handler = (call, callback) => {
      const parent = propagation.extract(context.active(), call.metadata, fromMetadata);
      const started = performance.now();
      const span = trace
        .getTracer('baton')
        .startSpan(
          `A2A server ${method}`,
          { kind: SpanKind.SERVER, attributes: { 'rpc.system': 'a2a', 'rpc.method': method, 'a2a.binding': 'GRPC' } },
          parent,
        );
      let ended = false;
      const end = (code: number): void => {
        if (ended) return;
        ended = true;
        span.setAttribute('rpc.grpc.status_code', code);
        if (code !== 0) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        recordServedRequest(method, code, (performance.now() - started) / 1000);
      };
      const done = callback
        ? (err: grpc.ServiceError | null, value?: unknown) => {
            end(err?.code ?? 0);
            callback(err, value);
          }
        : undefined;
      if (!callback) {
        // A server stream ends when the call does; an error is its status.
        call.once?.('finish', () => end(0));
        call.once?.('error', (err: { code?: number }) => end(err.code ?? 2));
        call.once?.('close', () => end(0));
      }
      context.with(trace.setSpan(parent, span), () => (fn as Handler).call(impl, call, done));
    };
    traced[name] = handler;
  }
  return traced as T;
}
