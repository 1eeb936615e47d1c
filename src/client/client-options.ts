/**
 * What Baton's clients (`BatonClient`, `GraphClient`) are made with, and the Temporal client they
 * share the making of.
 */
import { Client, type ConnectionLike } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { Caller } from '../shared/delegation-types';

export interface BatonClientOptions {
  namespace: string;
  taskQueue: string;
  caller: Caller;
  /** Temporal's data converter: the one the worker uses (`batonDataConverter(config)` with encryption). */
  dataConverter?: DataConverter;
}

/** The Temporal client for `opts`: its namespace, and its data converter when one is given. */
export function temporalClient(connection: ConnectionLike, opts: BatonClientOptions): Client {
  return new Client({ connection, namespace: opts.namespace, ...(opts.dataConverter ? { dataConverter: opts.dataConverter } : {}) });
}
