/**
 * A server span for each A2A request an HTTP app takes, continuing the caller's trace from its W3C
 * `traceparent`/`tracestate` headers. Everything the request does (starting a delegation, reading a
 * task) runs in the span's context, so Temporal's client interceptor carries it on. Without tracing
 * the API's tracer is a no-op and the middleware only passes the request on.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';

/** The JSON-RPC method when the body was one (read once the request was handled), else `VERB /path`. */
function methodOf(req: Request, path: string): string {
  if (req.method === 'GET' && path.endsWith('/agent-card.json')) return 'GetAgentCard';
  const body: unknown = req.body;
  const rpc = body && typeof body === 'object' && 'method' in body ? (body as { method: unknown }).method : undefined;
  return typeof rpc === 'string' ? rpc : `${req.method} ${path}`;
}

/**
 * Middleware: `prefix` starts each span's name (`A2A server` for Baton's served agents, the agent's name
 * for a demo agent); `tracer` defaults to this process's; `measure` hears of each request's method,
 * status and duration.
 */
export function traceRequests(prefix: string, tracer?: Tracer, measure?: (method: string, status: number, seconds: number) => void) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    // Read now: Express puts baseUrl back as the request leaves each router.
    const path = `${req.baseUrl ?? ''}${req.path}`.replace(/(.)\/$/, '$1');
    const { span, within } = serverSpan(req, `${prefix} ${req.method} ${path}`, tracer);
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      const method = methodOf(req, path);
      span.updateName(`${prefix} ${method}`);
      span.setAttributes({ 'rpc.system': 'a2a', 'rpc.method': method, 'http.response.status_code': res.statusCode });
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      measure?.(method, res.statusCode, (performance.now() - started) / 1000);
    };
    res.once('finish', end);
    res.once('close', end);
    within(next);
  };
}

/**
 * A server span for `req`, the child of the caller's span when its headers carry one; `within` runs
 * the request's handling in the span's context. The caller ends the span.
 */
export function serverSpan(req: Request, name: string, tracer?: Tracer): { span: Span; within(next: () => void): void } {
  const parent = propagation.extract(context.active(), req.headers);
  const span = (tracer ?? trace.getTracer('baton')).startSpan(name, { kind: SpanKind.SERVER }, parent);
  return { span, within: (next) => context.with(trace.setSpan(parent, span), next) };
}
