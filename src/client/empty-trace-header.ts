/**
 * OpenTelemetry's client interceptor writes its trace header (`_tracer-data`) into every start,
 * Signal and Update, also when there is no trace to carry: without a tracer provider the header is
 * the JSON `{}`, about 45 bytes of every such history event. This interceptor runs after it and
 * drops a header that carries nothing; a header with a trace passes unchanged, and a workflow
 * without the header starts its spans from its own context, as it would with `{}`.
 */
import type {
  Next,
  WorkflowClientInterceptor,
  WorkflowSignalInput,
  WorkflowSignalWithStartInput,
  WorkflowStartInput,
  WorkflowStartOutput,
  WorkflowStartUpdateInput,
  WorkflowStartUpdateOutput,
  WorkflowStartUpdateWithStartInput,
  WorkflowStartUpdateWithStartOutput,
} from '@temporalio/client';
import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import { TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';

/** `headers` without a trace header that carries no trace (the same object when there is none to drop). */
export function withoutEmptyTraceHeader(headers: Headers): Headers {
  const traced = headers[TRACE_HEADER];
  if (!traced) return headers;
  let carried: unknown;
  try {
    carried = defaultPayloadConverter.fromPayload(traced);
  } catch {
    return headers; // not ours to judge: pass it on
  }
  if (!carried || typeof carried !== 'object' || Object.keys(carried).length > 0) return headers;
  const rest = { ...headers };
  delete rest[TRACE_HEADER];
  return rest;
}

export class EmptyTraceHeaderInterceptor implements WorkflowClientInterceptor {
  start(input: WorkflowStartInput, next: Next<WorkflowClientInterceptor, 'start'>): Promise<string> {
    return next({ ...input, headers: withoutEmptyTraceHeader(input.headers) });
  }

  startWithDetails(input: WorkflowStartInput, next: Next<WorkflowClientInterceptor, 'startWithDetails'>): Promise<WorkflowStartOutput> {
    return next({ ...input, headers: withoutEmptyTraceHeader(input.headers) });
  }

  signal(input: WorkflowSignalInput, next: Next<WorkflowClientInterceptor, 'signal'>): Promise<void> {
    return next({ ...input, headers: withoutEmptyTraceHeader(input.headers) });
  }

  signalWithStart(input: WorkflowSignalWithStartInput, next: Next<WorkflowClientInterceptor, 'signalWithStart'>): Promise<string> {
    return next({ ...input, headers: withoutEmptyTraceHeader(input.headers) });
  }

  startUpdate(input: WorkflowStartUpdateInput, next: Next<WorkflowClientInterceptor, 'startUpdate'>): Promise<WorkflowStartUpdateOutput> {
    return next({ ...input, headers: withoutEmptyTraceHeader(input.headers) });
  }

  startUpdateWithStart(
    input: WorkflowStartUpdateWithStartInput,
    next: Next<WorkflowClientInterceptor, 'startUpdateWithStart'>,
  ): Promise<WorkflowStartUpdateWithStartOutput> {
    return next({
      ...input,
      workflowStartHeaders: withoutEmptyTraceHeader(input.workflowStartHeaders),
      updateHeaders: withoutEmptyTraceHeader(input.updateHeaders),
    });
  }
}
