/**
 * Each call to an agent as a client span that carries W3C `traceparent`/`tracestate` to it (so an
 * agent that traces continues the delegation's trace) and as a latency sample by agent, binding and
 * method. Attributes name the call, never its content: no message text, artifacts or credentials.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { Context as ActivityContext } from '@temporalio/activity';
import { toFailure } from '../a2a/errors';
import { recordRemoteCall } from './metrics';

export interface RemoteCall {
  agent: string;
  /** JSONRPC, HTTP+JSON or GRPC. */
  binding: string;
  /** The A2A method (SendMessage, GetTask…). */
  method: string;
  /** The remote task, when the call is about one. */
  taskId?: string;
}

const tracer = () => trace.getTracer('baton');

/** The delegation (workflow) the current activity works for, when the call is made from one. */
function delegationId(): string | undefined {
  try {
    return ActivityContext.current().info.workflowExecution?.workflowId;
  } catch {
    return undefined;
  }
}

function startSpan(call: RemoteCall): { span: Span; headers: Record<string, string> } {
  const delegation = delegationId();
  const span = tracer().startSpan(`A2A ${call.method}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'rpc.system': 'a2a',
      'rpc.method': call.method,
      'baton.agent': call.agent,
      'a2a.binding': call.binding,
      ...(call.taskId ? { 'a2a.task_id': call.taskId } : {}),
      ...(delegation ? { 'baton.delegation_id': delegation } : {}),
    },
  });
  const headers: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), headers);
  return { span, headers };
}

/** The failure type the error maps to (RetryLater, AgentRefused…), as the activity will report it. */
function errorType(err: unknown): string {
  return toFailure(err, '').type ?? 'Error';
}

function end(call: RemoteCall, span: Span, started: number, err?: unknown, taskId?: string): void {
  if (taskId && !call.taskId) span.setAttribute('a2a.task_id', taskId);
  if (err !== undefined) {
    const type = errorType(err);
    span.setAttribute('error.type', type);
    // The failure type only: an agent's error text is untrusted and may repeat what it was sent.
    span.setStatus({ code: SpanStatusCode.ERROR, message: type });
  }
  span.end();
  recordRemoteCall(
    { agent: call.agent, binding: call.binding, method: call.method },
    (performance.now() - started) / 1000,
    err === undefined ? undefined : errorType(err),
  );
}

/**
 * Runs one call in its span. `run` gets the trace headers to send with the request; `taskIdOf`
 * reads the remote task id from the answer (a send learns it only then).
 */
export async function instrumentCall<T>(
  call: RemoteCall,
  run: (traceHeaders: Record<string, string>) => Promise<T>,
  taskIdOf?: (result: T) => string | undefined,
): Promise<T> {
  const { span, headers } = startSpan(call);
  const started = performance.now();
  try {
    const result = await run(headers);
    end(call, span, started, undefined, taskIdOf?.(result));
    return result;
  } catch (err) {
    end(call, span, started, err);
    throw err;
  }
}

/** A streaming call: the span lasts until the stream ends, drops or is left. */
export async function* instrumentStream<T>(
  call: RemoteCall,
  run: (traceHeaders: Record<string, string>) => AsyncIterable<T>,
  taskIdOf?: (event: T) => string | undefined,
): AsyncGenerator<T> {
  const { span, headers } = startSpan(call);
  const started = performance.now();
  let taskId: string | undefined;
  let failed: unknown;
  try {
    for await (const event of run(headers)) {
      taskId ??= taskIdOf?.(event);
      yield event;
    }
  } catch (err) {
    failed = err;
    throw err;
  } finally {
    end(call, span, started, failed, taskId);
  }
}
