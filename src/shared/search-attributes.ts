/**
 * Typed search attributes, one source for worker, workflows and clients. Registered on the server
 * at start (dev server flags, or the operator API for an existing server).
 */
import {
  defineSearchAttributeKey,
  SearchAttributeType,
  type SearchAttributePair,
  type SearchAttributeUpdatePair,
  type TypedSearchAttributes,
} from '@temporalio/common';
import { BATON_VERSION } from './baton-version';
import type { DelegationRecord } from './delegation-types';

export const SA_STATUS = defineSearchAttributeKey('BatonStatus', SearchAttributeType.KEYWORD);
export const SA_OUTCOME = defineSearchAttributeKey('BatonOutcome', SearchAttributeType.KEYWORD);
export const SA_AGENT = defineSearchAttributeKey('BatonAgent', SearchAttributeType.KEYWORD);
export const SA_TENANT = defineSearchAttributeKey('BatonTenant', SearchAttributeType.KEYWORD);
export const SA_REMOTE_TASK_ID = defineSearchAttributeKey('BatonRemoteTaskId', SearchAttributeType.KEYWORD);
export const SA_REMOTE_STATE = defineSearchAttributeKey('BatonRemoteState', SearchAttributeType.KEYWORD);

/** The pending request's id while the delegation waits for input, authentication or review. */
export const SA_PENDING_REQUEST = defineSearchAttributeKey('BatonPendingRequest', SearchAttributeType.KEYWORD);

/** The Baton version that started the delegation or graph (set at start, never changed). */
export const SA_BATON_VERSION = defineSearchAttributeKey('BatonVersion', SearchAttributeType.KEYWORD);

/** The served agent (`serve.services.<name>`) a delegation is a task of, when a caller started it over A2A. */
export const SA_SERVICE = defineSearchAttributeKey('BatonService', SearchAttributeType.KEYWORD);

/** The contextId the A2A caller's task is in (the caller's, not the remote agent's): ListTasks filters by it. */
export const SA_SERVED_CONTEXT = defineSearchAttributeKey('BatonServedContext', SearchAttributeType.KEYWORD);

export const ALL_SEARCH_ATTRIBUTES = [
  SA_STATUS,
  SA_OUTCOME,
  SA_AGENT,
  SA_TENANT,
  SA_REMOTE_TASK_ID,
  SA_REMOTE_STATE,
  SA_PENDING_REQUEST,
  SA_BATON_VERSION,
  SA_SERVICE,
  SA_SERVED_CONTEXT,
];

/**
 * Temporal's own attribute for the worker deployment version ("<deployment>:<build id>") a versioned
 * workflow runs on; empty for workflows on unversioned workers.
 */
export const TEMPORAL_DEPLOYMENT_VERSION = 'TemporalWorkerDeploymentVersion';

/**
 * The attributes a delegation starts with, set by whoever starts it (client or parent workflow): the
 * workflow then has nothing to upsert before its first real change, one visibility write fewer.
 */
export function startingAttributes(input: { agent: string; tenant: string }): SearchAttributePair[] {
  return [
    { key: SA_STATUS, value: 'STARTING' },
    { key: SA_AGENT, value: input.agent },
    { key: SA_TENANT, value: input.tenant },
    { key: SA_BATON_VERSION, value: BATON_VERSION },
  ];
}

/** The attributes a graph starts with: its tenant and the Baton version that started it. */
export function graphAttributes(input: { tenant: string }): SearchAttributePair[] {
  return [
    { key: SA_TENANT, value: input.tenant },
    { key: SA_BATON_VERSION, value: BATON_VERSION },
  ];
}

/**
 * What a delegation's record shows in search attributes: status, agent and tenant always, the remote
 * task, its state and the outcome once known, and the pending request (null removes it once nothing is pending).
 */
export function searchAttributesOf(r: DelegationRecord): SearchAttributeUpdatePair[] {
  const pairs: SearchAttributeUpdatePair[] = [
    { key: SA_STATUS, value: r.status },
    { key: SA_AGENT, value: r.agent.name },
    { key: SA_TENANT, value: r.tenant },
  ];
  if (r.remote.taskId) pairs.push({ key: SA_REMOTE_TASK_ID, value: r.remote.taskId });
  if (r.remote.state) pairs.push({ key: SA_REMOTE_STATE, value: r.remote.state });
  if (r.outcome) pairs.push({ key: SA_OUTCOME, value: r.outcome.kind });
  pairs.push({ key: SA_PENDING_REQUEST, value: r.pending ? r.pending.requestId : null });
  return pairs;
}

/**
 * Of `pairs`, those that change what `current` holds: an upsert merges into the attributes the
 * workflow has, so an unchanged agent or tenant need not be written again (about 70 bytes of history
 * each). Never empty, since the server refuses an empty upsert: with no change, the status alone.
 */
export function changedAttributes(pairs: SearchAttributeUpdatePair[], current: TypedSearchAttributes): SearchAttributeUpdatePair[] {
  const changed = pairs.filter(({ key, value }) => {
    const now: unknown = current.get(key);
    return value === null ? now !== undefined : now !== value;
  });
  return changed.length ? changed : pairs.slice(0, 1);
}
