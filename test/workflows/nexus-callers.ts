/**
 * Caller workflows of the Nexus test, in namespaces other than Baton's: they reach Baton only through
 * its Nexus endpoint, with the service definition a TypeScript caller imports (`baton-a2a/nexus`).
 */
import * as wf from '@temporalio/workflow';
import { batonNexusService, type DelegateInput } from '../../workflows/api';
import type { DelegationRecord } from '../../src/shared/delegation-types';

type OperationName = keyof typeof batonNexusService.operations;

/** What a caller was told when an operation failed: each error on the cause chain, name, type and message. */
export interface Told {
  chain: { name: string; message: string; type?: string }[];
}

function told(err: unknown): Told {
  const chain: Told['chain'] = [];
  for (
    let e = err as { name?: string; message?: string; type?: string; cause?: unknown } | undefined, i = 0;
    e && i < 5;
    e = e.cause as typeof e, i++
  )
    chain.push({ name: String(e.name), message: String(e.message), ...(typeof e.type === 'string' ? { type: e.type } : {}) });
  return { chain };
}

const baton = (endpoint: string) => wf.createNexusServiceClient({ service: batonNexusService, endpoint });

/** Runs one operation to its end: its result, or what the caller was told. */
export async function callOnce(endpoint: string, operation: OperationName, input: unknown): Promise<{ result?: unknown; error?: Told }> {
  try {
    return { result: await baton(endpoint).executeOperation(operation, input as never, { scheduleToCloseTimeout: '2m' }) };
  } catch (err) {
    return { error: told(err) };
  }
}

/**
 * Starts `delegate`, waits for the agent's question, then cancels the operation (its scope): what the
 * operation's result said, and the record `status` reads afterwards.
 */
export async function delegateThenCancel(
  endpoint: string,
  input: DelegateInput,
): Promise<{ token?: string; asked: boolean; result?: DelegationRecord; error?: Told; after?: DelegationRecord }> {
  const client = baton(endpoint);
  const scope = new wf.CancellationScope();
  const handle = await scope.run(() =>
    client.startOperation('delegate', input, { scheduleToCloseTimeout: '5m', cancellationType: 'WAIT_CANCELLATION_COMPLETED' }),
  );
  const token = handle.token as string;
  const waiting = await client.executeOperation('status', { delegation: token, waitFor: 'pending', maxWaitSeconds: 9 });
  scope.cancel();
  const out: { token?: string; asked: boolean; result?: DelegationRecord; error?: Told; after?: DelegationRecord } = {
    token,
    asked: Boolean(waiting.pending),
  };
  try {
    out.result = await handle.result();
  } catch (err) {
    out.error = told(err);
  }
  out.after = await client.executeOperation('status', { delegation: token });
  return out;
}

/** Starts `delegate` and waits for its result (a worker may die meanwhile). */
export async function delegateAndWait(endpoint: string, input: DelegateInput): Promise<DelegationRecord> {
  return baton(endpoint).executeOperation('delegate', input, { scheduleToCloseTimeout: '5m' });
}

/** Two `delegate` operations with one idempotency key, at once: their tokens and results. */
export async function delegateTwice(
  endpoint: string,
  input: DelegateInput,
): Promise<{ tokens: (string | undefined)[]; records: DelegationRecord[] }> {
  const client = baton(endpoint);
  const handles = await Promise.all([0, 1].map(() => client.startOperation('delegate', input, { scheduleToCloseTimeout: '5m' })));
  return { tokens: handles.map((h) => h.token), records: await Promise.all(handles.map((h) => h.result())) };
}

/** Two `status` waits at once by one caller: with one stream allowed, one waits its turn (retried). */
export async function twoWaits(endpoint: string, delegation: string): Promise<(string | undefined)[]> {
  const client = baton(endpoint);
  const wait = () =>
    client.executeOperation('status', { delegation, waitFor: 'settled', maxWaitSeconds: 3 }, { scheduleToCloseTimeout: '1m' });
  return (await Promise.all([wait(), wait()])).map((r) => r.status);
}
