/**
 * The typed client for applications: start a delegation, wait for it, read its record.
 */
import { randomUUID } from 'node:crypto';
import {
  Client,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type ConnectionLike,
} from '@temporalio/client';
import { MAX_PROTOCOL_ID, type Part } from '../shared/a2a-types';
import { CredentialNameSchema, DelegationInputSchema, type Caller, type Contract, type DelegationRecord } from '../shared/delegation-types';
import { DELEGATION_ID_PREFIX, refuseChosenId, tenantScopedId } from '../shared/ids';
import {
  SA_AGENT,
  SA_OUTCOME,
  SA_PENDING_REQUEST,
  SA_REMOTE_TASK_ID,
  SA_STATUS,
  SA_TENANT,
  startingAttributes,
  SA_BATON_VERSION,
  SA_SERVED_CONTEXT,
  SA_SERVICE,
  TEMPORAL_DEPLOYMENT_VERSION,
} from '../shared/search-attributes';
import { describeIssues } from '../config/load';
import { refuseDataUseShape, withDataUse, type DataUse } from '../shared/data-use';
import { DataUseSchema } from '../shared/data-use-types';
import type { AuditTrail } from '../shared/audit-trail';
import { readAuditTrail } from './delegation-audit';
import type { DelegationWorkflow } from '../../workflows/messages';
import { readRecord } from '../shared/record-version';
import { FIRST_SEND_FLAGS } from '../shared/delegation-state';
import { answerUpdate, authorizeUpdate, cancelUpdate, reviewUpdate, statusQuery } from '../../workflows/messages';
import { ChangeWaiter } from './history-follower';
import { sendUpdate } from './send-update';
import { temporalClient, type BatonClientOptions } from './client-options';
import { temporalCall } from './temporal-call';
import type { InboxCache } from './inbox-cache';
import { mapAtMost } from '../shared/map-at-most';
import { NoWorkerError } from '../errors/temporal-errors';
import { DelegationNotFoundError, InvalidRequestError, RequestRefusedError } from './errors';
import type { WorkflowStarter } from './workflow-starter';

export interface StartDelegation {
  agent: string;
  parts: Part[];
  policy?: string;
  /**
   * Your id for it, kept within your tenant: the delegation's id is `<tenant>:<id>`. Starting twice
   * with one id is refused, unless `existing` says otherwise. Default: a new `dlg-<uuid>`.
   */
  id?: string;
  /**
   * What a start under an `id` that exists already does: `refuse` (RequestRefusedError), or `find` it
   * (a retried start of the same work: an AG-UI thread's, whose id is derived). Default refuse;
   * `served` finds.
   */
  existing?: 'refuse' | 'find';
  contextId?: string;
  referenceTaskIds?: string[];
  /** Deadline and limits for this delegation, over the agent's defaults. */
  contract?: Contract;
  /**
   * A label and data-use terms for every part that carries none of its own (a part carries its own
   * under `metadata["urn:baton-a2a:data-use:v1"]`). The worker refuses, before anything is sent, data
   * the agent is not cleared for (docs/data-use.md). Default: none, and unlabelled data is sent as before.
   */
  dataUse?: DataUse;
  /**
   * The A2A task this delegation is, when Baton serves an agent (`serve.services`): its id (Baton's
   * own, used as the delegation's; one that exists already is the same task, for a retried
   * SendMessage), the service and the caller's contextId (search attributes, for ListTasks).
   */
  served?: { taskId: string; service: string; contextId: string };
  /**
   * Starts the workflow instead of this client (a Nexus operation's start, which attaches its
   * callback). Default: Temporal's `workflow.start`.
   */
  starter?: WorkflowStarter;
}

/** Options of an answer or authorization. */
export interface UpdateOptions {
  /** Temporal's Update id: the same id sent twice is applied once (a retried A2A message). Default: a fresh one. */
  updateId?: string;
}

/** Filters for `list`; every value is matched exactly. */
export interface ListFilter {
  status?: string;
  agent?: string;
  outcome?: string;
  /** Only delegations started by this Baton version (BatonVersion); `none`: those started before 0.2.0, which recorded none. */
  batonVersion?: string;
  /** At most this many rows, newest first. Default 50. */
  limit?: number;
}

/** One row of `list`: what the search attributes say, without querying the delegation. */
export interface DelegationSummary {
  id: string;
  agent?: string;
  status?: string;
  outcome?: string;
  remoteTaskId?: string;
  pendingRequestId?: string;
  started: string;
  /** The Baton version that started it (absent for delegations started before 0.2.0). */
  batonVersion?: string;
  /** The worker deployment version it runs on (`<deployment>:<build id>`), with Worker Versioning. */
  deploymentVersion?: string;
}

/** The `batonVersion` filter for delegations started before Baton recorded its version (0.2.0). */
export const UNVERSIONED = 'none';

const FILTER_VALUE = /^[A-Za-z0-9_.:@/-]+$/;

/** A value for a visibility query, quoted; refused (InvalidRequestError) unless it is a plain identifier. */
export function quoted(field: string, value: string): string {
  if (value.length > MAX_PROTOCOL_ID) throw new InvalidRequestError(`${field} is longer than ${MAX_PROTOCOL_ID} characters`);
  if (!FILTER_VALUE.test(value))
    throw new InvalidRequestError(`${field} ${JSON.stringify(value)} may use letters, digits and . _ : @ / - only`);
  return `'${value}'`;
}

export { DelegationNotFoundError, InvalidRequestError, RequestRefusedError };

/** The workflow id of an id a caller of `tenant` chose for `what`: kept within its tenant; a reserved one is refused. */
export function chosenWorkflowId(tenant: string, chosen: string | undefined, what: string): string | undefined {
  if (chosen === undefined) return undefined;
  const refusal = refuseChosenId(tenant, chosen, what);
  if (refusal) throw new InvalidRequestError(refusal);
  return tenantScopedId(tenant, chosen);
}

/** Which credentials a delegation's agent accepts, said for a refusal. */
function acceptedBy(record: DelegationRecord): string {
  const allowed = record.pending?.credentials ?? record.agent.credentials;
  const agent = record.agent.name;
  if (!allowed) return `the names are listed under agents.${agent}.credentials in the worker's config`;
  if (allowed.length) return `agent ${agent} accepts: ${allowed.join(', ')}`;
  return `agent ${agent} accepts none for your tenant (agents.${agent}.credentials in the worker's config)`;
}

/** Records one inbox reads at once. */
const INBOX_READS_AT_ONCE = 8;

/** How many ids of delegations it started a client remembers as its caller's own. */
const STARTED_REMEMBERED = 10_000;

export class BatonClient {
  readonly client: Client;
  /** Delegations this client started, hence of its caller's tenant: no describe needed to know it. */
  private readonly started = new Set<string>();

  constructor(
    private readonly connection: ConnectionLike,
    private readonly opts: BatonClientOptions,
  ) {
    this.client = temporalClient(connection, opts);
  }

  /** The same client acting as another caller (the HTTP API serves many). */
  as(caller: Caller): BatonClient {
    return new BatonClient(this.connection, { ...this.opts, caller });
  }

  /** The task queue this client starts workflows on. */
  get taskQueue(): string {
    return this.opts.taskQueue;
  }

  /** The caller this client acts as. */
  get caller(): Caller {
    return this.opts.caller;
  }

  /**
   * The caller's delegations, newest first, from search attributes. The tenant filter comes from the
   * caller, never from the filter: a contextId or an id is not a permission.
   */
  async list(filter: ListFilter = {}): Promise<DelegationSummary[]> {
    const clauses = this.ownDelegations();
    if (filter.status) clauses.push(`${SA_STATUS.name} = ${quoted('status', filter.status.toUpperCase())}`);
    if (filter.agent) clauses.push(`${SA_AGENT.name} = ${quoted('agent', filter.agent)}`);
    if (filter.outcome) clauses.push(`${SA_OUTCOME.name} = ${quoted('outcome', filter.outcome.toUpperCase())}`);
    if (filter.batonVersion === UNVERSIONED) clauses.push(`${SA_BATON_VERSION.name} IS NULL`);
    else if (filter.batonVersion) clauses.push(`${SA_BATON_VERSION.name} = ${quoted('batonVersion', filter.batonVersion)}`);
    return this.rows(clauses, filter.limit ?? 50);
  }

  /** The caller's delegations, each once: a delegation that continued as new is its open or last run. */
  private ownDelegations(): string[] {
    return [
      `WorkflowType = 'delegationWorkflow'`,
      `${SA_TENANT.name} = ${quoted('tenant', this.opts.caller.tenant)}`,
      `ExecutionStatus != 'ContinuedAsNew'`,
    ];
  }

  /** One visibility query: the rows that match all of `clauses`, newest first. */
  private async rows(clauses: string[], limit: number): Promise<DelegationSummary[]> {
    const rows: DelegationSummary[] = [];
    if (limit <= 0) return rows;
    const listed = this.client.workflow.list({ query: clauses.join(' AND '), pageSize: Math.min(limit, 100) });
    await this.call(async () => {
      for await (const wf of listed) {
        const sa = wf.searchAttributes as Record<string, unknown[] | undefined>;
        const first = (key: { name: string }): string | undefined => sa[key.name]?.[0] as string | undefined;
        rows.push({
          id: wf.workflowId,
          ...(first(SA_AGENT) ? { agent: first(SA_AGENT) } : {}),
          ...(first(SA_STATUS) ? { status: first(SA_STATUS) } : {}),
          ...(first(SA_OUTCOME) ? { outcome: first(SA_OUTCOME) } : {}),
          ...(first(SA_REMOTE_TASK_ID) ? { remoteTaskId: first(SA_REMOTE_TASK_ID) } : {}),
          ...(first(SA_PENDING_REQUEST) ? { pendingRequestId: first(SA_PENDING_REQUEST) } : {}),
          started: wf.startTime.toISOString(),
          ...(first(SA_BATON_VERSION) ? { batonVersion: first(SA_BATON_VERSION) } : {}),
          ...(first({ name: TEMPORAL_DEPLOYMENT_VERSION }) ? { deploymentVersion: first({ name: TEMPORAL_DEPLOYMENT_VERSION }) } : {}),
        });
        if (rows.length >= limit) break;
      }
    });
    return rows;
  }

  /**
   * The requests waiting for a person in the caller's tenant (input, auth, review), with each
   * delegation's record for its prompt. Oldest first: the longest wait is answered first. With a
   * `cache`, a request already read is not read again while it waits; `reads` says how many records
   * were read (what the inbox cost beyond its one visibility query).
   */
  async inbox(opts: { limit?: number; cache?: InboxCache } = {}): Promise<{ records: DelegationRecord[]; reads: number }> {
    const limit = opts.limit ?? 50;
    const tenant = this.opts.caller.tenant;
    // One visibility query for every kind of wait.
    const waiting = await this.rows(
      [...this.ownDelegations(), `${SA_STATUS.name} IN ('WAITING_INPUT', 'WAITING_AUTH', 'WAITING_REVIEW')`],
      limit,
    );
    let reads = 0;
    // One delegation gone, or whose worker is down (it cannot take an answer now either), does not
    // keep the others out of the inbox. A few at a time: one inbox must not hold the connection.
    const records = await mapAtMost(INBOX_READS_AT_ONCE, waiting, async (row) => {
      const kept = row.pendingRequestId ? opts.cache?.get(tenant, row.id, row.pendingRequestId) : undefined;
      if (kept) return kept;
      reads += 1;
      const record = await this.show(row.id).catch((err: unknown) =>
        err instanceof DelegationNotFoundError || err instanceof NoWorkerError ? undefined : Promise.reject(err),
      );
      if (record?.pending && record.pending.requestId === row.pendingRequestId) opts.cache?.set(tenant, record);
      return record;
    });
    return {
      records: records
        .filter((r): r is DelegationRecord => r?.pending != null)
        .sort((a, b) => (a.pending?.observedAt ?? '').localeCompare(b.pending?.observedAt ?? ''))
        .slice(0, limit),
      reads,
    };
  }

  /** Starts a delegation and returns its id. */
  async start(req: StartDelegation): Promise<string> {
    const use = req.dataUse === undefined ? undefined : DataUseSchema.safeParse(req.dataUse);
    if (use && !use.success) throw new InvalidRequestError(`invalid data use: ${describeIssues(use.error).join('; ')}`);
    const parsed = DelegationInputSchema.safeParse({
      agent: req.agent,
      parts: req.parts,
      tenant: this.opts.caller.tenant,
      owner: this.opts.caller.user,
      ...(req.policy ? { policy: req.policy } : {}),
      ...(req.contextId ? { contextId: req.contextId } : {}),
      ...(req.referenceTaskIds?.length ? { referenceTaskIds: req.referenceTaskIds } : {}),
      ...(req.contract ? { contract: req.contract } : {}),
      ...FIRST_SEND_FLAGS,
    });
    if (!parsed.success) throw new InvalidRequestError(`invalid delegation: ${describeIssues(parsed.error).join('; ')}`);
    const malformed = refuseDataUseShape(parsed.data.parts);
    if (malformed) throw new InvalidRequestError(malformed);
    if (use?.data) parsed.data.parts = withDataUse(parsed.data.parts, use.data);
    await this.checkRemoteIds(parsed.data.agent, parsed.data.contextId, parsed.data.referenceTaskIds);
    const id =
      req.served?.taskId ?? chosenWorkflowId(this.opts.caller.tenant, req.id, 'a delegation') ?? `${DELEGATION_ID_PREFIX}${randomUUID()}`;
    const starter: WorkflowStarter = req.starter ?? ((type, options) => this.client.workflow.start(type, options));
    await this.call(() =>
      starter<DelegationWorkflow>('delegationWorkflow', {
        workflowId: id,
        taskQueue: this.opts.taskQueue,
        args: [parsed.data],
        typedSearchAttributes: [
          ...startingAttributes(parsed.data),
          ...(req.served
            ? [
                { key: SA_SERVICE, value: req.served.service },
                { key: SA_SERVED_CONTEXT, value: req.served.contextId },
              ]
            : []),
        ],
        staticSummary: `Delegation to ${parsed.data.agent}`,
        // An id names one delegation for good: a retried start after it ended must not run it again.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }).catch((err: unknown) => {
        if (err instanceof WorkflowExecutionAlreadyStartedError) {
          if (req.served || req.existing === 'find') return;
          throw new RequestRefusedError(`a delegation with id ${id} exists already: nothing was started; choose another id`);
        }
        throw err;
      }),
    );
    this.started.add(id);
    if (this.started.size > STARTED_REMEMBERED) this.started.delete(this.started.values().next().value as string);
    return id;
  }

  /**
   * Remote ids a caller names are sent under Baton's own credential to an agent other tenants may use
   * too: each referenced task must be one of the caller's tenant's delegations to that agent, and a
   * contextId the context of one of them (a caller continues a conversation by referencing its task).
   * Otherwise one tenant could attach its work to another's conversation (a confused deputy).
   */
  private async checkRemoteIds(agent: string, contextId: string | undefined, references: string[] | undefined): Promise<void> {
    const refs = [...new Set(references ?? [])];
    if (contextId === undefined && !refs.length) return;
    if (contextId !== undefined && !refs.length)
      throw new InvalidRequestError(
        `contextId ${JSON.stringify(contextId)} needs referenceTaskIds naming your earlier task in that context: Baton sends a context on only to continue one of yours`,
      );
    const rows = await this.rows(
      [
        ...this.ownDelegations(),
        `${SA_AGENT.name} = ${quoted('agent', agent)}`,
        `${SA_REMOTE_TASK_ID.name} IN (${refs.map((r) => quoted('referenceTaskIds', r)).join(', ')})`,
      ],
      refs.length * 4,
    );
    const found = new Set(rows.map((r) => r.remoteTaskId));
    const unknown = refs.find((r) => !found.has(r));
    if (unknown) throw new InvalidRequestError(`referenceTaskIds: ${unknown} is not a remote task of one of your delegations to ${agent}`);
    if (contextId === undefined) return;
    for (const row of rows) if ((await this.show(row.id)).remote.contextId === contextId) return;
    throw new InvalidRequestError(`contextId ${contextId} is not the context of the tasks you reference at ${agent}`);
  }

  /** Waits until the delegation settles and returns its record. */
  async result(id: string): Promise<DelegationRecord> {
    // Another tenant's delegation is not found at once, as a missing one is, rather than after it ends.
    if (!this.started.has(id)) await this.requireOwn(id);
    let record: DelegationRecord;
    try {
      record = readRecord(await this.call(() => this.client.workflow.getHandle<DelegationWorkflow>(id).result()));
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new DelegationNotFoundError(id);
      if (!(err instanceof WorkflowFailedError)) throw err;
      // Terminated or failed by an operator: there is no record to give.
      throw new RequestRefusedError(`delegation ${id} ended without its record: ${err.cause?.message ?? err.message}`);
    }
    if (record.tenant !== this.opts.caller.tenant) throw new DelegationNotFoundError(id);
    return record;
  }

  /**
   * The record now: the result once settled, the live status while it runs. A delegation of another
   * tenant is reported as not found, so its existence does not leak.
   */
  async show(id: string): Promise<DelegationRecord> {
    const handle = this.client.workflow.getHandle<DelegationWorkflow>(id);
    let record: DelegationRecord;
    try {
      record = await this.call(async () => {
        const description = await handle.describe();
        // Read through readRecord: a delegation started by an older Baton returns an older record.
        return readRecord(description.status.name === 'COMPLETED' ? await handle.result() : await handle.query(statusQuery));
      });
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new DelegationNotFoundError(id);
      throw err;
    }
    if (record.tenant !== this.opts.caller.tenant) throw new DelegationNotFoundError(id);
    return record;
  }

  /**
   * Reads the record until `done` holds for it: again whenever the delegation's history says it may
   * show something new (decision 0039), at the latest after 5 s, and every `intervalMs` (default 250)
   * while the history cannot be followed. For progress displays and scripted answers. With `endsAt`
   * (a time in ms since the epoch; default never), the record as it is then, whether `done` holds or not.
   */
  async until(
    id: string,
    done: (record: DelegationRecord) => boolean,
    intervalMs = 250,
    endsAt = Number.POSITIVE_INFINITY,
  ): Promise<DelegationRecord> {
    // Followed from before the first read, so no change after it is missed.
    const changes = new ChangeWaiter(this.client, id);
    await changes.prime();
    for (;;) {
      const record = await this.show(id);
      const left = endsAt - Date.now();
      if (done(record) || left <= 0) return record;
      await changes.changed({ maxWaitMs: Math.min(5_000, left), failPauseMs: intervalMs });
    }
  }

  /**
   * Who sent what to whom, with digests, from the delegation's history (docs/data-use.md): the request
   * and every answer with its sender, what the agent sent back, steering and the outcome, under the
   * three principals. Another tenant's delegation is not found, as for `show`.
   */
  async audit(id: string): Promise<AuditTrail> {
    const record = await this.show(id);
    return this.call(() => readAuditTrail(this.client, id, record));
  }

  /** Answers the pending input request; resolves once the answer went out to the agent. */
  answer(id: string, requestId: string, parts: Part[], opts: UpdateOptions = {}): Promise<{ messageId: string }> {
    return this.update(id, () =>
      this.client.workflow.getHandle(id).executeUpdate(answerUpdate, { args: [{ requestId, parts, caller: this.opts.caller }], ...opts }),
    );
  }

  /**
   * Authorizes the pending auth request with a credential the agent's entry allows, by name (the
   * worker reads its value). A name the delegation may not send is refused here, before the workflow
   * is asked, with the names it may.
   */
  async authorize(id: string, requestId: string, credential: string, opts: UpdateOptions = {}): Promise<{ messageId: string }> {
    const record = await this.show(id);
    // Checked here only while an authentication is pending; otherwise the workflow says what is wrong.
    const allowed = record.pending?.kind === 'auth' ? (record.pending.credentials ?? record.agent.credentials) : undefined;
    if (!CredentialNameSchema.safeParse(credential).success || (allowed && !allowed.includes(credential))) {
      throw new InvalidRequestError(`credential "${credential}" is not one delegation ${id} may send; ${acceptedBy(record)}`);
    }
    return this.update(
      id,
      () =>
        this.client.workflow
          .getHandle(id)
          .executeUpdate(authorizeUpdate, { args: [{ requestId, credential, caller: this.opts.caller }], ...opts }),
      record,
    );
  }

  /** Decides a result waiting for review; resolves with the settled record. */
  review(
    id: string,
    requestId: string,
    decision: 'accept' | 'reject',
    reason?: string,
    opts: UpdateOptions = {},
  ): Promise<DelegationRecord> {
    return this.update(id, () =>
      this.client.workflow
        .getHandle(id)
        .executeUpdate(reviewUpdate, { args: [{ requestId, decision, caller: this.opts.caller, ...(reason ? { reason } : {}) }], ...opts })
        .then(readRecord),
    );
  }

  /** Cancels the delegation (and the remote task); resolves with the settled record. */
  cancel(id: string, reason?: string, opts: UpdateOptions = {}): Promise<DelegationRecord> {
    return this.update(id, () =>
      this.client.workflow
        .getHandle(id)
        .executeUpdate(cancelUpdate, { args: [{ caller: this.opts.caller, ...(reason ? { reason } : {}) }], ...opts })
        .then(readRecord),
    );
  }

  /**
   * Sends an Update to delegation `id`, after checking it is the caller's (unless the caller just read
   * its record): another tenant's is reported as not found, exactly like a missing one, so an Update
   * cannot probe for ids.
   */
  private async update<T>(id: string, call: () => Promise<T>, shown?: DelegationRecord): Promise<T> {
    if (!shown) await this.requireOwn(id);
    return this.call(() => sendUpdate(`delegation ${id}`, call, () => this.show(id)));
  }

  /** Whether `id` is a delegation of the caller's tenant (by its search attributes: no worker needed). */
  async owns(id: string): Promise<boolean> {
    try {
      await this.requireOwn(id);
      return true;
    } catch (err) {
      if (err instanceof DelegationNotFoundError) return false;
      throw err;
    }
  }

  /**
   * Throws DelegationNotFoundError unless `id` is a delegation of the caller's tenant, by its search
   * attributes (no worker needed): another tenant's is reported exactly as a missing one.
   */
  private async requireOwn(id: string): Promise<void> {
    const description = await this.call(() => this.client.workflow.getHandle(id).describe()).catch((err: unknown) => {
      throw err instanceof WorkflowNotFoundError ? new DelegationNotFoundError(id) : err;
    });
    if (description.type !== 'delegationWorkflow' || description.typedSearchAttributes.get(SA_TENANT) !== this.opts.caller.tenant) {
      throw new DelegationNotFoundError(id);
    }
  }

  /** A call to Temporal, its failures said in Baton's terms. */
  private call<T>(fn: () => Promise<T>): Promise<T> {
    return temporalCall({ connection: this.connection, namespace: this.opts.namespace }, fn);
  }
}
