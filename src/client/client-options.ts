/**
 * What Baton's clients (`BatonClient`, `GraphClient`) are made with, and the Temporal client they
 * share the making of.
 */
import { Client, type ConnectionLike } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';
import type { DataConverter } from '@temporalio/common';
import type { Caller } from '../shared/delegation-types';
import { EmptyTraceHeaderInterceptor } from './empty-trace-header';

export interface BatonClientOptions {
  namespace: string;
  taskQueue: string;
  caller: Caller;
  /**
   * Temporal's data converter: the one the worker uses (`batonDataConverter(config)` with encryption).
   * @default Temporal's default converter (payloads as plain JSON)
   */
  dataConverter?: DataConverter;
}

/**
 * The Temporal client for `opts`: its namespace, its data converter when one is given, and
 * OpenTelemetry's client interceptor, which starts a span for each start, Update and Query and
 * passes the trace to the workflow in its headers. It costs nothing measurable without a tracer
 * provider (the API's no-op tracer), and with the application's own provider the delegation joins
 * the application's trace. A header with no trace in it is dropped before it reaches history.
 */
export function temporalClient(connection: ConnectionLike, opts: BatonClientOptions): Client {
  return new Client({
    connection,
    namespace: opts.namespace,
    ...(opts.dataConverter ? { dataConverter: opts.dataConverter } : {}),
    interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor(), new EmptyTraceHeaderInterceptor()] },
  });
}
