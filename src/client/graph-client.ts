/**
 * The typed client for task graphs: start one from a spec, read it, add follow-ups, cancel it.
 */
import { randomUUID } from 'node:crypto';
import { Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type ConnectionLike } from '@temporalio/client';
import type { Caller } from '../shared/delegation-types';
import { parseGraphSpec } from '../shared/graph-spec';
import type { GraphSpec } from '../shared/graph-types';
import { pageOfRecord } from '../shared/graph-page';
import {
  graphAttributes,
  SA_BATON_VERSION,
  SA_PENDING_REQUEST,
  SA_REMOTE_STATE,
  SA_REMOTE_TASK_ID,
  SA_SERVED_CONTEXT,
  SA_SERVICE,
  SA_STATUS,
  SA_TENANT,
} from '../shared/search-attributes';
import { chosenWorkflowId, quoted } from './baton-client';
import type { TaskState } from '../shared/a2a-types';
import type { GraphNodeSpec, GraphPageRequest, GraphRecord } from '../shared/graph-types';
import type { TaskGraphWorkflow } from '../../workflows/messages';
import { addFollowUpUpdate, cancelGraphUpdate, graphStatusQuery } from '../../workflows/messages';
import { GraphNotFoundError, RequestRefusedError } from './errors';
import { GRAPH_ID_PREFIX } from '../shared/ids';
import { ChangeWaiter } from './history-follower';
import { sendUpdate } from './send-update';
import { temporalClient, type BatonClientOptions } from './client-options';
import { temporalCall } from './temporal-call';
import type { WorkflowStarter } from './workflow-starter';

export { GRAPH_ID_PREFIX } from '../shared/ids';

/** One graph in a list: what visibility says about it, without reading the graph itself. */
export interface GraphSummary {
  id: string;
  /** RUNNING while the workflow runs (cancelling included), SETTLED once it returned its record, FAILED when its spec was refused, or Temporal's own word (TERMINATED, …). */
  status: string;
  /** When the graph's current run started (a graph that continued as new: its latest run). */
  started: string;
  closed?: string;
  /** The Baton version that started it. */
  batonVersion?: string;
}

/** Which graphs `list` returns: running, settled (closed), or all; newest first. */
export interface GraphListFilter {
  status?: 'running' | 'settled';
  limit?: number;
}

/** Temporal's execution status as a graph's status in a list. */
const LISTED_STATUS: Record<string, string> = { RUNNING: 'RUNNING', COMPLETED: 'SETTLED' };

export class GraphClient {
  readonly client: Client;

  constructor(
    private readonly connection: ConnectionLike,
    private readonly opts: BatonClientOptions,
  ) {
    this.client = temporalClient(connection, opts);
  }

  /** The same client acting as another caller (the HTTP API serves many). */
  as(caller: Caller): GraphClient {
    return new GraphClient(this.connection, { ...this.opts, caller });
  }

  /**
   * Checks the spec (throws GraphSpecError naming each bad node; with `knownAgents`, unknown agents
   * too) and starts the graph. The id: the caller's (`opts.id`, else the spec's `id`), kept within its
   * tenant as `<tenant>:<id>`; else a new `graph-<uuid>`.
   */
  async start(
    rawSpec: unknown,
    opts: {
      id?: string;
      knownAgents?: string[];
      /**
       * The A2A task this graph is, when Baton serves it: its id (Baton's own, used as the graph's; one
       * that exists already is the same task), the service and the caller's contextId (search attributes).
       */
      served?: { taskId: string; service: string; contextId: string };
      /** What a start under an id that exists already does: `refuse` it, or `find` it (a retried start). Default refuse; `served` finds. */
      existing?: 'refuse' | 'find';
      /** Runs on the checked spec before anything starts (a caller's budget takes its nodes); a rejection starts nothing. */
      admit?: (spec: GraphSpec) => Promise<void>;
      /** Starts the workflow instead of this client (a Nexus operation's start). Default: Temporal's `workflow.start`. */
      starter?: WorkflowStarter;
    } = {},
  ): Promise<string> {
    const spec = parseGraphSpec(rawSpec, opts.knownAgents);
    await opts.admit?.(spec);
    const id =
      opts.served?.taskId ??
      chosenWorkflowId(this.opts.caller.tenant, opts.id ?? spec.id, 'a graph') ??
      `${GRAPH_ID_PREFIX}${randomUUID()}`;
    const starter: WorkflowStarter = opts.starter ?? ((type, options) => this.client.workflow.start(type, options));
    await this.call(() =>
      starter<TaskGraphWorkflow>('taskGraphWorkflow', {
        workflowId: id,
        taskQueue: this.opts.taskQueue,
        args: [{ spec, tenant: this.opts.caller.tenant, owner: this.opts.caller.user }],
        typedSearchAttributes: [
          ...graphAttributes({ tenant: this.opts.caller.tenant }),
          ...(opts.served
            ? [
                { key: SA_SERVICE, value: opts.served.service },
                { key: SA_SERVED_CONTEXT, value: opts.served.contextId },
              ]
            : []),
        ],
        staticSummary: `Task graph of ${spec.nodes.length} node(s)`,
        // An id names one graph for good: a retried start after it ended must not run it again.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }).catch((err: unknown) => {
        if (err instanceof WorkflowExecutionAlreadyStartedError) {
          if (opts.served || opts.existing === 'find') return;
          throw new RequestRefusedError(`a graph with id ${id} exists already: nothing was started; choose another id`);
        }
        throw err;
      }),
    );
    return id;
  }

  /**
   * One page of the graph now (the first 100 nodes unless `page` says otherwise): the live record
   * while it runs, its result once settled; another tenant's is not found. The page's started nodes get
   * their remote task and their delegation's status from one visibility query, whatever the graph's size.
   */
  async show(id: string, page: GraphPageRequest = {}): Promise<GraphRecord> {
    const record = await this.read(id, page);
    await this.addLive(record);
    return record;
  }

  /**
   * A graph whose type and tenant the caller checked already (a served task's ownership check), read
   * without describing it again: its status Query (or its result, once closed) and its nodes' status.
   */
  async showChecked(id: string, status: string, page: GraphPageRequest = {}): Promise<GraphRecord> {
    const handle = this.client.workflow.getHandle<TaskGraphWorkflow>(id);
    const record = await this.call(async () =>
      status === 'RUNNING' ? await handle.query(graphStatusQuery, page) : pageOfRecord(await handle.result(), page),
    );
    await this.addLive(record);
    return record;
  }

  private async read(id: string, page: GraphPageRequest): Promise<GraphRecord> {
    const handle = this.client.workflow.getHandle<TaskGraphWorkflow>(id);
    let record: GraphRecord;
    try {
      record = await this.call(async () => {
        const description = await handle.describe();
        if (description.type !== 'taskGraphWorkflow') throw new GraphNotFoundError(id);
        // A graph whose spec the worker refused has failed: result() throws with the reason.
        return description.status.name === 'RUNNING'
          ? await handle.query(graphStatusQuery, page)
          : pageOfRecord(await handle.result(), page);
      });
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new GraphNotFoundError(id);
      throw err;
    }
    if (record.tenant !== this.opts.caller.tenant) throw new GraphNotFoundError(id);
    return record;
  }

  /** Fills in the started nodes' remote tasks and delegation status, from their search attributes. */
  private async addLive(record: GraphRecord): Promise<void> {
    const started = record.nodes.filter((n) => n.status !== 'PENDING' && n.status !== 'SKIPPED');
    if (!started.length) return;
    const byId = new Map(started.map((n) => [n.delegationId, n]));
    const ids = [...byId.keys()].map((d) => `'${d.replaceAll("'", "''")}'`).join(', ');
    // A delegation that continued as new has one row per run: the open or last one is the one to read.
    const query = `WorkflowId IN (${ids}) AND ExecutionStatus != 'ContinuedAsNew'`;
    await this.call(async () => {
      for await (const wf of this.client.workflow.list({ query, pageSize: started.length })) {
        const node = byId.get(wf.workflowId);
        if (!node) continue;
        const sa = wf.typedSearchAttributes;
        const taskId = sa.get(SA_REMOTE_TASK_ID);
        const state = sa.get(SA_REMOTE_STATE) as TaskState | undefined;
        const status = sa.get(SA_STATUS);
        const pendingRequest = sa.get(SA_PENDING_REQUEST);
        node.remote = { ...(taskId ? { taskId } : {}), ...(state ? { state } : {}) };
        if (status) node.delegation = { status, ...(pendingRequest ? { pendingRequest } : {}) };
      }
    });
  }

  /**
   * The caller's graphs, newest first, in one visibility query; the tenant comes from the caller. A graph
   * that continued as new is one row (its open or last run).
   */
  async list(filter: GraphListFilter = {}): Promise<GraphSummary[]> {
    const clauses = [
      `WorkflowType = 'taskGraphWorkflow'`,
      `${SA_TENANT.name} = ${quoted('tenant', this.opts.caller.tenant)}`,
      `ExecutionStatus != 'ContinuedAsNew'`,
    ];
    if (filter.status === 'running') clauses.push(`ExecutionStatus = 'Running'`);
    if (filter.status === 'settled') clauses.push(`ExecutionStatus != 'Running'`);
    const limit = filter.limit ?? 50;
    const rows: GraphSummary[] = [];
    await this.call(async () => {
      for await (const wf of this.client.workflow.list({ query: clauses.join(' AND '), pageSize: Math.min(limit, 100) })) {
        const version = wf.typedSearchAttributes.get(SA_BATON_VERSION);
        rows.push({
          id: wf.workflowId,
          status: LISTED_STATUS[wf.status.name] ?? wf.status.name,
          started: (wf.executionTime ?? wf.startTime).toISOString(),
          ...(wf.closeTime ? { closed: wf.closeTime.toISOString() } : {}),
          ...(version ? { batonVersion: version } : {}),
        });
        if (rows.length >= limit) break;
      }
    });
    return rows;
  }

  /** Waits until the graph settles; resolves with its first page (`page` for another). */
  async result(id: string, page: GraphPageRequest = {}): Promise<GraphRecord> {
    await this.read(id, {});
    await this.call(() => this.client.workflow.getHandle<TaskGraphWorkflow>(id).result());
    return this.show(id, page);
  }

  /**
   * Reads the record (its first page, without the nodes' live state) until `done` holds: again whenever
   * the graph's history says it may show something new (decision 0039), at the latest after 5 s, and
   * every `intervalMs` while the history cannot be followed.
   */
  async until(id: string, done: (record: GraphRecord) => boolean, intervalMs = 250, page: GraphPageRequest = {}): Promise<GraphRecord> {
    // Followed from before the first read, so no change after it is missed.
    const changes = new ChangeWaiter(this.client, id);
    await changes.prime();
    for (;;) {
      const record = await this.read(id, page);
      if (done(record)) return record;
      await changes.changed({ maxWaitMs: 5_000, failPauseMs: intervalMs });
    }
  }

  /** Adds a node to the running graph (a refinement names the node it `refines`). */
  addFollowUp(
    id: string,
    node: Omit<GraphNodeSpec, 'dependsOn'> & { dependsOn?: string[] },
  ): Promise<{ nodeId: string; delegationId: string }> {
    return this.update(id, () =>
      this.client.workflow
        .getHandle(id)
        .executeUpdate(addFollowUpUpdate, { args: [{ node: { ...node, dependsOn: node.dependsOn ?? [] }, caller: this.opts.caller }] }),
    );
  }

  /** Cancels the graph's running nodes (and their remote tasks) and skips the rest. */
  cancel(id: string, reason?: string): Promise<GraphRecord> {
    return this.update(id, () =>
      this.client.workflow
        .getHandle(id)
        .executeUpdate(cancelGraphUpdate, { args: [{ caller: this.opts.caller, ...(reason ? { reason } : {}) }] }),
    );
  }

  /** An Update to graph `id`, after reading it: another tenant's graph is not found, like a missing one. */
  private async update<T>(id: string, call: () => Promise<T>): Promise<T> {
    await this.read(id, { limit: 1 });
    return this.call(() => sendUpdate(`graph ${id}`, call, () => this.read(id, { limit: 1 })));
  }

  /** A call to Temporal, its failures said in Baton's terms. */
  private call<T>(fn: () => Promise<T>): Promise<T> {
    return temporalCall({ connection: this.connection, namespace: this.opts.namespace }, fn);
  }
}
