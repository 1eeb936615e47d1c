/**
 * What an A2A request to a served agent uses beyond the request itself, read from the request before
 * the SDK's handler runs: whether it starts a task (work), and whether it holds the caller's
 * connection while it follows the task (a stream, a subscription, a blocking SendMessage).
 */

import type { Caller } from '../shared/delegation-types';
import { objectOf, sentToTask } from '../shared/plain-object';
import type { Lease } from './budget-store';
import type { CallerBudget } from './caller-budget';

export interface ServedRequestUse {
  /** It may start a task: a message that names none. */
  startsTask: boolean;
  /** It stays open while the task works. */
  holds: boolean;
}

const NONE: ServedRequestUse = { startsTask: false, holds: false };

/** What a SendMessage-shaped request (`{message, configuration}`) uses, streaming or not. */
function sending(params: unknown, streaming: boolean): ServedRequestUse {
  const returnImmediately = objectOf(objectOf(params)?.configuration)?.returnImmediately === true;
  return { startsTask: sentToTask(params) === undefined, holds: streaming || !returnImmediately };
}

/** A JSON-RPC request's use, by its method. */
export function jsonRpcUse(body: unknown): ServedRequestUse {
  const b = objectOf(body);
  switch (b?.method) {
    case 'SendMessage':
      return sending(b.params, false);
    case 'SendStreamingMessage':
      return sending(b.params, true);
    case 'SubscribeToTask':
      return { startsTask: false, holds: true };
    default:
      return NONE;
  }
}

/** An HTTP+JSON request's use, by its path (below the binding's mount) and body. */
export function restUse(method: string, path: string, body: unknown): ServedRequestUse {
  if (/\/message:send$/.test(path) && method === 'POST') return sending(body, false);
  if (/\/message:stream$/.test(path) && method === 'POST') return sending(body, true);
  if (/\/tasks\/[^/]+:subscribe$/.test(path)) return { startsTask: false, holds: true };
  return NONE;
}

/** A gRPC call's use, by its method's name and its (decoded) request. */
export function grpcUse(method: string, request: unknown): ServedRequestUse {
  const name = method.slice(method.lastIndexOf('/') + 1);
  if (name === 'SendMessage') return sending(request, false);
  if (name === 'SendStreamingMessage') return sending(request, true);
  if (name === 'SubscribeToTask') return { startsTask: false, holds: true };
  return NONE;
}

/**
 * Takes what a served request uses from the caller's budget: the delegations a task of the service
 * starts (`workCost`), and a stream while it holds the connection (the lease, to release when the
 * request ends). Throws RateLimitedError (or InvalidRequest for a task larger than a burst).
 */
export async function takeServedUse(
  budget: CallerBudget,
  caller: Caller,
  use: ServedRequestUse,
  workCost: number,
): Promise<Lease | undefined> {
  if (use.startsTask) await budget.startWork(caller, workCost, workCost === 1 ? 'a task' : `a task of ${workCost} delegations`);
  return use.holds ? budget.openStream(caller) : undefined;
}
