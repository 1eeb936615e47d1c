/**
 * The workflow interceptors of the traced bundle: OpenTelemetry's spans (the same names and the same
 * `_tracer-data` header), made so they add no step to the workflow's promise chains. Temporal's own
 * interceptors wrap each handler and command in async functions, and, where a history lacks the SDK
 * flag that turns them off, yield once more: a handler then finishes a few microtasks later than
 * without tracing. On a served task's push workflow that moved an Update's completion behind the next
 * activity, so histories written without tracing failed to replay with it (the replay corpus showed
 * it on the traced bundle). Here each span is opened and closed beside the promise the SDK hands
 * back, which the workflow gets unchanged: with tracing on or off, a workflow issues the same
 * commands in the same order, and a fleet can switch tracing either way with workflows in flight.
 */
import { context as otelContext, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { extractContextFromHeaders, headersWithContext } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import {
  ContinueAsNew,
  workflowInfo,
  type ActivityInput,
  type ContinueAsNewInput,
  type LocalActivityInput,
  type Next,
  type SignalInput,
  type SignalWorkflowInput,
  type StartChildWorkflowExecutionInput,
  type UpdateInput,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

const ended = (span: Span, err?: unknown, acceptable?: (err: unknown) => boolean): void => {
  if (err === undefined || acceptable?.(err)) span.setStatus({ code: SpanStatusCode.OK });
  else span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  span.end();
};

/** Runs `run` in a span named `name` (under `parent`, else the active span) and returns its very promise. */
function spanned<T>(
  tracer: Tracer,
  name: string,
  parent: Context | undefined,
  run: (span: Span) => Promise<T>,
  acceptable?: (err: unknown) => boolean,
): Promise<T> {
  const ctx = parent ?? otelContext.active();
  const span = tracer.startSpan(name, undefined, ctx);
  let result: Promise<T>;
  try {
    result = otelContext.with(trace.setSpan(ctx, span), () => run(span));
  } catch (err) {
    ended(span, err, acceptable);
    throw err;
  }
  result.then(
    () => ended(span),
    (err: unknown) => ended(span, err, acceptable),
  );
  return result;
}

const isContinueAsNew = (err: unknown): boolean => err instanceof ContinueAsNew;

/**
 * A delegation's span says which delegation, which agent, and how it ended. Set here rather than in
 * the workflow, so the plain bundle carries no tracing code at all.
 */
function describeDelegation(span: Span, input: WorkflowExecuteInput, result: Promise<unknown>): void {
  const { workflowType, workflowId } = workflowInfo();
  if (workflowType !== 'delegationWorkflow') return;
  const agent = (input.args[0] as { agent?: unknown } | undefined)?.agent;
  span.setAttributes({ 'baton.delegation_id': workflowId, ...(typeof agent === 'string' ? { 'baton.agent': agent } : {}) });
  result.then(
    (record) => {
      const r = record as { outcome?: { kind?: string }; remote?: { taskId?: string } } | undefined;
      span.setAttributes({
        'baton.outcome': r?.outcome?.kind ?? 'NONE',
        ...(r?.remote?.taskId ? { 'a2a.task_id': r.remote.taskId } : {}),
      });
    },
    () => undefined,
  );
}

class Inbound extends OpenTelemetryInboundInterceptor {
  override execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    return spanned(
      this.tracer,
      `RunWorkflow:${workflowInfo().workflowType}`,
      extractContextFromHeaders(input.headers),
      (span) => {
        const result = next(input);
        describeDelegation(span, input, result);
        return result;
      },
      isContinueAsNew,
    );
  }
  override handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    return spanned(this.tracer, `HandleSignal:${input.signalName}`, extractContextFromHeaders(input.headers), () => next(input));
  }
  override handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    return spanned(this.tracer, `HandleUpdate:${input.name}`, extractContextFromHeaders(input.headers), (span) => {
      span.setAttribute('temporalUpdateId', input.updateId);
      return next(input);
    });
  }
  override validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>): void {
    const span = this.tracer.startSpan(
      `ValidateUpdate:${input.name}`,
      undefined,
      extractContextFromHeaders(input.headers) ?? otelContext.active(),
    );
    try {
      next(input);
      ended(span);
    } catch (err) {
      ended(span, err);
      throw err;
    }
  }
}

class Outbound extends OpenTelemetryOutboundInterceptor {
  /** A span around the command, its trace passed on in the command's headers. */
  private around<I extends { headers: ActivityInput['headers'] }, O>(
    name: string,
    input: I,
    next: (input: I) => Promise<O>,
    acceptable?: (err: unknown) => boolean,
  ): Promise<O> {
    return spanned(this.tracer, name, undefined, () => next({ ...input, headers: headersWithContext(input.headers) }), acceptable);
  }
  override scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    return this.around(`StartActivity:${input.activityType}`, input, next);
  }
  override scheduleLocalActivity(
    input: LocalActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>,
  ): Promise<unknown> {
    return this.around(`StartActivity:${input.activityType}`, input, next);
  }
  override startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    return this.around(`StartChildWorkflow:${input.workflowType}`, input, next);
  }
  override continueAsNew(input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>): Promise<never> {
    return this.around(`ContinueAsNew:${input.options.workflowType}`, input, next, isContinueAsNew);
  }
  override signalWorkflow(input: SignalWorkflowInput, next: Next<WorkflowOutboundCallsInterceptor, 'signalWorkflow'>): Promise<void> {
    return this.around(`SignalWorkflow:${input.signalName}`, input, next);
  }
}

export const interceptors = (): WorkflowInterceptors => ({
  inbound: [new Inbound()],
  outbound: [new Outbound()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});
