/**
 * The served-task service: everything Baton does with a task it serves over A2A, below both the
 * serving edge (`src/serve`: the protocol) and the activities that push a task's changes to callers'
 * webhooks. One ownership check (a describe: the task is this service's and the caller's tenant's),
 * then one read of what runs it; an answer or an authorization goes out as an Update without
 * describing the task again.
 */
import type { WorkflowExecutionDescription } from '@temporalio/client';
import type { ArtifactStore } from '../artifacts/store';
import type { BatonClient } from '../client/baton-client';
import { quoted } from '../client/baton-client';
import type { Part, TaskState } from '../shared/a2a-types';
import type { Caller } from '../shared/delegation-types';
import { SA_SERVED_CONTEXT, SA_SERVICE, SA_TENANT } from '../shared/search-attributes';
import { ServedTaskReader, type ServedTaskFactsRead } from './task-reader';
import { authorizeDelegation, type TaskRequest, type TaskRunner } from './task-runners';
import { visibilityClauseFor, wireTaskOf, type WireTask } from './task-view';
import { TaskWatch, type TaskWatchOptions } from './task-watch';

/** One page of a service's tasks, as visibility lists them (newest first). */
export interface ServedTaskPage {
  ids: string[];
  /** Temporal's token for the next page (empty: none). */
  nextPageToken?: Uint8Array;
  /** Tasks that match, on every page. */
  total: number;
}

export class ServedTasks {
  private readonly reader: ServedTaskReader;

  constructor(
    private readonly o: {
      /** The service's name (`serve.services.<name>`). */
      service: string;
      baton: BatonClient;
      /** What runs each task: a delegation, a graph, or the application's workflow. */
      runner: TaskRunner;
      artifacts?: ArtifactStore;
    },
  ) {
    this.reader = new ServedTaskReader({
      service: o.service,
      baton: o.baton,
      runner: o.runner,
      ...(o.artifacts ? { artifacts: o.artifacts } : {}),
    });
  }

  /** The task's description if it is this service's and the caller's tenant's, else TaskNotFoundError. */
  owned(id: string, caller: Caller): Promise<WorkflowExecutionDescription> {
    return this.reader.owned(id, caller);
  }

  /** The task behind an id, read (a describe and one read of what runs it). */
  read(id: string, caller: Caller): Promise<ServedTaskFactsRead> {
    return this.reader.read(id, caller);
  }

  /** The task as the caller sees it. */
  view(id: string, caller: Caller, opts: { artifacts?: boolean } = {}): Promise<WireTask> {
    return this.reader.view(id, caller, opts);
  }

  /** Follows the task as the caller sees it: one describe, then a read whenever it may have changed. */
  watch(id: string, caller: Caller, opts: TaskWatchOptions = {}): TaskWatch {
    return new TaskWatch(this.reader, id, caller, opts);
  }

  /** Starts a task under `id` (a retried message finds the one it started): true when this call started it. */
  start(caller: Caller, id: string, parts: Part[], contextId: string): Promise<boolean> {
    return this.o.runner.start(caller, id, parts, { service: this.o.service, contextId });
  }

  /**
   * Task `id` the moment this call started it, before its workflow has run: SUBMITTED, nothing sent
   * yet (so no history), in context `contextId`. What a caller who asked not to wait is answered.
   */
  submitted(id: string, contextId: string, startedAt: Date): WireTask {
    return wireTaskOf(
      { state: 'TASK_STATE_SUBMITTED', status: this.o.runner.startedStatus },
      { id, contextId, startedAt: startedAt.toISOString() },
    );
  }

  /** Answers the input request `pending` of a task the caller just read. */
  answer(caller: Caller, pending: TaskRequest, parts: Part[], updateId: string): Promise<void> {
    return this.o.runner.answer(caller, pending, parts, updateId);
  }

  /** Answers the authentication request `pending` of a task the caller just read, with a credential by name. */
  authorize(caller: Caller, pending: TaskRequest, credential: string, updateId: string): Promise<void> {
    return authorizeDelegation(this.o.baton, caller, pending, credential, updateId);
  }

  cancel(caller: Caller, id: string): Promise<void> {
    return this.o.runner.cancel(caller, id);
  }

  /**
   * One page of the caller's tasks of this service, in a context and a state when asked. A
   * delegation's state is in its search attributes; any other task's is read (a page may then hold
   * fewer than it matched).
   */
  async list(
    caller: Caller,
    filter: { pageSize: number; contextId?: string; state?: TaskState; nextPageToken?: Buffer },
  ): Promise<ServedTaskPage> {
    const query = this.listQuery(caller, filter);
    const temporal = this.o.baton.client;
    const page = await this.reader.call(() =>
      temporal.workflowService.listWorkflowExecutions({
        namespace: temporal.options.namespace,
        query,
        pageSize: filter.pageSize,
        ...(filter.nextPageToken ? { nextPageToken: filter.nextPageToken } : {}),
      }),
    );
    const ids = (page.executions ?? []).map((e) => e.execution?.workflowId ?? '').filter(Boolean);
    const total = await this.reader.call(() => temporal.workflow.count(query));
    return { ids, ...(page.nextPageToken?.length ? { nextPageToken: page.nextPageToken } : {}), total: total.count };
  }

  /** The visibility query of `list`: what a page token is bound to. */
  listQuery(caller: Caller, filter: { contextId?: string; state?: TaskState }): string {
    const clauses = [
      `WorkflowType = '${this.o.runner.workflowType}'`,
      `${SA_TENANT.name} = ${quoted('tenant', caller.tenant)}`,
      `${SA_SERVICE.name} = '${this.o.service}'`,
      `ExecutionStatus != 'ContinuedAsNew'`,
    ];
    if (filter.contextId) clauses.push(`${SA_SERVED_CONTEXT.name} = ${quoted('contextId', filter.contextId)}`);
    if (filter.state && this.o.runner.workflowType === 'delegationWorkflow') clauses.push(visibilityClauseFor(filter.state));
    return clauses.join(' AND ');
  }
}
