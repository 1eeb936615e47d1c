/**
 * How a served task is read: its workflow described (and checked to be the service's and the caller's
 * tenant's), its state from what runs it, and once COMPLETED its accepted artifacts with their bytes.
 * The request handler reads through it, and so does the watch that pushes changes to callers' webhooks.
 */
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { decodeTypedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes';
import { isRef, verified, type ArtifactStore } from '../artifacts/store';
import type { BatonClient } from '../client/baton-client';
import type { HistoryFollower } from '../client/history-follower';
import { temporalCall } from '../client/temporal-call';
import { asBatonError, grpcCodeOf } from '../errors/as-baton-error';
import { BatonError } from '../shared/baton-error';
import type { Part } from '../shared/a2a-types';
import type { Caller, DelegationRecord } from '../shared/delegation-types';
import { SA_SERVED_CONTEXT, SA_SERVICE, SA_TENANT } from '../shared/search-attributes';
import { servedContextId } from './task-id';
import { wireTaskOf, type WireTask } from './task-view';
import type { TaskRead, TaskRunner } from './task-runners';

/** How long one read of a task's state may take before it counts as unanswered (and is tried again). */
const READ_DEADLINE_MS = 10_000;

/** Largest artifact handed over inline from the store: the SDK's client refuses a stream event above 4 MiB. */
const INLINE_FROM_STORE_MAX = 3 * 1024 * 1024;

/** What a served task is apart from its state: its id, its context and when it started. */
export interface ServedTaskFacts {
  id: string;
  contextId: string;
  startedAt: string;
}

export interface ServedTaskFactsRead extends TaskRead {
  facts: ServedTaskFacts;
}

/** A task's facts from its description (`owned()`). */
export function factsOf(description: WorkflowExecutionDescription): ServedTaskFacts {
  const id = description.workflowId;
  const contextId = description.typedSearchAttributes.get(SA_SERVED_CONTEXT) ?? servedContextId(id);
  return { id, contextId, startedAt: description.startTime.toISOString() };
}

/**
 * A task's facts from the history `own` follows (its first event, once primed); `contextId` when its
 * search attributes name none.
 */
export function followedFacts(own: HistoryFollower, contextId: string): ServedTaskFacts {
  return {
    id: own.workflowId,
    contextId: decodeTypedSearchAttributes(own.startedWith).get(SA_SERVED_CONTEXT) ?? contextId,
    startedAt: (own.startedAt ?? new Date()).toISOString(),
  };
}

/** No served task's id is longer (a caller's longer one is not looked up, and not repeated whole). */
const MAX_ID_CHARS = 200;

/** What a caller hears of a task that does not exist or is not one it may see: the same either way. */
const notFound = (id: string) => new TaskNotFoundError(`no task ${id.length > MAX_ID_CHARS ? `${id.slice(0, MAX_ID_CHARS)}…` : id}`);

/** gRPC NOT_FOUND: how a history read answers for a workflow that does not exist. */
const GRPC_NOT_FOUND = 5;

const isNotFound = (err: unknown): boolean =>
  err instanceof WorkflowNotFoundError || grpcCodeOf(err) === GRPC_NOT_FOUND || asBatonError(err)?.kind === 'NotFound';

export class ServedTaskReader {
  constructor(
    private readonly o: {
      /** The service's name (`serve.services.<name>`). */
      service: string;
      baton: BatonClient;
      runner: Pick<TaskRunner, 'workflowType' | 'read'>;
      artifacts?: ArtifactStore;
    },
  ) {}

  /** The Temporal client the tasks are read with. */
  get client(): Client {
    return this.o.baton.client;
  }

  /** The task as the caller sees it (TaskNotFoundError when it is not one the caller may see). */
  async view(id: string, caller: Caller, opts: { artifacts?: boolean } = {}): Promise<WireTask> {
    return this.viewOf(await this.read(id, caller), opts);
  }

  /** A read task as the caller sees it: once COMPLETED, with its artifacts (unless `artifacts: false`). */
  async viewOf(read: ServedTaskFactsRead, opts: { artifacts?: boolean } = {}): Promise<WireTask> {
    const { facts, state, results, artifacts: own, turns } = read;
    const artifacts =
      state.state === 'TASK_STATE_COMPLETED' && opts.artifacts !== false ? (own ?? (await this.artifactsOf(results))) : undefined;
    return wireTaskOf(state, { ...facts, ...(artifacts ? { artifacts } : {}), ...(turns ? { turns } : {}) });
  }

  /**
   * The description of task `id` if it is one of this service's and of the caller's tenant, else
   * TaskNotFoundError: another tenant's task, or another service's, does not leak its existence.
   */
  async owned(id: string, caller: Caller): Promise<WorkflowExecutionDescription> {
    if (!id || id.length > MAX_ID_CHARS) throw notFound(id);
    const description = await this.call(() => this.o.baton.client.workflow.getHandle(id).describe()).catch((err: unknown) => {
      throw isNotFound(err) ? notFound(id) : err;
    });
    if (!this.isOwn(description.type, description.typedSearchAttributes, caller)) throw notFound(id);
    return description;
  }

  /**
   * Starts following task `own.workflowId` (primes `own`) if it is one of this service's and of the
   * caller's tenant, checked as `owned()` checks a description but on the run's first event (its
   * type and search attributes, which Baton never changes after the start): no describe, and nothing
   * of another's history is read past its first page. TaskNotFoundError as `owned()` gives it.
   */
  async followOwned(own: HistoryFollower, caller: Caller): Promise<ServedTaskFacts> {
    const id = own.workflowId;
    if (!id || id.length > MAX_ID_CHARS) throw notFound(id);
    const mine = () => {
      if (!this.isOwn(own.startedAs, decodeTypedSearchAttributes(own.startedWith), caller)) throw notFound(id);
    };
    await this.call(() => own.prime(undefined, mine)).catch((err: unknown) => {
      throw err instanceof TaskNotFoundError ? err : isNotFound(err) ? notFound(id) : err;
    });
    // The first page did not come in time: nothing was checked, and nothing may be shown.
    if (own.startedAs === undefined) throw new BatonError('Unavailable', `Temporal did not answer the read of task ${id} in time`);
    return followedFacts(own, servedContextId(id));
  }

  private isOwn(type: string | undefined, sa: TypedSearchAttributes, caller: Caller): boolean {
    return type === this.o.runner.workflowType && sa.get(SA_TENANT) === caller.tenant && sa.get(SA_SERVICE) === this.o.service;
  }

  /** The task behind an id, if it is one of this service's and of the caller's tenant. */
  async read(id: string, caller: Caller): Promise<ServedTaskFactsRead> {
    const description = await this.owned(id, caller);
    return this.readOwned(factsOf(description), caller, description.status.name);
  }

  /**
   * The task whose ownership was checked (`owned()`, or its id derived from the caller), its execution
   * now in `status` (RUNNING, COMPLETED…); `result`: a closed run's result when the caller has it already.
   */
  async readOwned(facts: ServedTaskFacts, caller: Caller, status: string, result?: { value: unknown }): Promise<ServedTaskFactsRead> {
    const id = facts.id;
    // 👉 A Query that reaches a run while the worker evicts it from its cache (cache pressure: many
    // open tasks) can go unanswered until the call's deadline (the SDK drops it with "leftover
    // buffered tasks when evicting run"). A short deadline and one more try, by then on a run the
    // worker has again, instead of a stall of the default 30 s or more.
    const connection = this.o.baton.client.connection;
    const once = () =>
      this.call(() => connection.withDeadline(Date.now() + READ_DEADLINE_MS, () => this.o.runner.read(caller, id, status, result)));
    const read = await once().catch((err: unknown) => {
      if (asBatonError(err)?.kind !== 'Unavailable') throw err;
      return once();
    });
    return { ...read, facts };
  }

  /** The accepted artifacts with their parts: inline ones as they are, stored ones from the store. */
  private async artifactsOf(records: DelegationRecord[]): Promise<{ artifactId: string; name?: string; parts: Part[] }[]> {
    const out: { artifactId: string; name?: string; parts: Part[] }[] = [];
    const store = this.o.artifacts;
    for (const a of records.flatMap((r) => r.artifacts)) {
      let parts = a.parts;
      if (!parts && a.ref && isRef(a.ref) && store && a.size <= INLINE_FROM_STORE_MAX && (await store.has(a.ref))) {
        const bytes = verified(a.ref, await store.get(a.ref));
        parts = [{ raw: bytes.toString('base64'), ...(a.mediaType ? { mediaType: a.mediaType } : {}) }];
      }
      parts ??= [
        { text: `artifact ${a.name ?? a.artifactId}: ${a.size} bytes, sha256 ${a.sha256}, kept by Baton and too large to pass on here` },
      ];
      out.push({ artifactId: a.artifactId, ...(a.name ? { name: a.name } : {}), parts });
    }
    return out;
  }

  /** A call to Temporal, its failures turned into Baton's (Unavailable, NotFound…). */
  call<T>(fn: () => Promise<T>): Promise<T> {
    const client = this.o.baton.client;
    return temporalCall({ connection: client.connection, namespace: client.options.namespace }, fn);
  }
}
