/**
 * What runs a served task: one delegation (`delegate`), a task graph (`graph`), or the application's
 * own workflow (`workflow`). Each starts the workflow under the task's id, reads it as a ServedStatus,
 * passes the caller's answer on, and cancels it; the served agent does the protocol around them.
 * Ownership is checked once before a runner acts, by the reader (a describe in `ServedTaskReader.owned`,
 * or the first event of the history a watch follows), or holds by construction for an id derived from
 * the caller; what a runner does next relies on it, and the workflow's validators check the caller's
 * tenant again.
 */
import type { BatonClient } from '../client/baton-client';
import type { GraphClient } from '../client/graph-client';
import type { ServedAgentConfig, ServedNode } from '../config/schema';
import type { Part } from '../shared/a2a-types';
import { CredentialNameSchema, type Caller, type DelegationRecord, type Turn } from '../shared/delegation-types';
import { InvalidRequestError } from '../client/errors';
import type { GraphRecord, GraphSpecInput } from '../shared/graph-types';
import { readRecord } from '../shared/record-version';
import {
  answerUpdate,
  authorizeUpdate,
  servedMessageUpdate,
  servedTaskQuery,
  statusQuery,
  type DelegationWorkflow,
} from '../../workflows/messages';
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { WorkflowStarter } from '../client/workflow-starter';
import { sendUpdate } from '../client/send-update';
import { temporalCall } from '../client/temporal-call';
import { SA_SERVED_CONTEXT, SA_SERVICE, SA_TENANT } from '../shared/search-attributes';
import type { ServedArtifact, ServedTaskInput, ServedTaskState } from '../shared/served-task-types';
import { delegationStatus, endNodes, graphStatus, TERMINAL_STATES, type ServedStatus } from './task-view';

/** A served task, read: its state and, once COMPLETED, its result (delegations' artifacts, or the workflow's own). */
export interface TaskRead {
  state: ServedStatus;
  /** The accepted delegations whose artifacts are the task's result. */
  results: DelegationRecord[];
  /** The result's artifacts as the workflow gave them (an application's workflow). */
  artifacts?: ServedArtifact[];
  /** The turns of the delegation that is the task: its history. */
  turns?: Turn[];
}

/** The request a served task waits for (its state's `pending`). */
export type TaskRequest = NonNullable<ServedStatus['pending']>;

export interface TaskRunner {
  /** The workflow type a task of this service is. */
  readonly workflowType: string;
  /**
   * Baton's status of a task of this service the moment its workflow starts, before it has run
   * (what a caller who asked not to wait is shown, in the task's metadata).
   */
  readonly startedStatus: string;
  /**
   * Starts the task's workflow under `id`; an id that exists already is the same task (a retried
   * message). True when this call started it, false when it found the one started before.
   */
  start(caller: Caller, id: string, parts: Part[], served: { service: string; contextId: string }): Promise<boolean>;
  /**
   * The task, read; `status` is its workflow's execution status (RUNNING, COMPLETED, CANCELLED…),
   * `result` a COMPLETED run's result when the reader has it already (from the history it follows).
   */
  read(caller: Caller, id: string, status: string, result?: { value: unknown }): Promise<TaskRead>;
  /** Passes the caller's answer to the input request `pending`; `updateId` makes a retried message apply once. */
  answer(caller: Caller, pending: TaskRequest, parts: Part[], updateId: string): Promise<void>;
  cancel(caller: Caller, id: string): Promise<void>;
}

/**
 * Sends `update` to the delegation that asked `pending`: a delegation's or a graph node's. The served
 * task's ownership was checked when it was read, so the Update goes out without another describe.
 */
async function updateAsked(
  baton: BatonClient,
  pending: TaskRequest,
  what: string,
  update: (handle: WorkflowHandle<DelegationWorkflow>) => Promise<unknown>,
): Promise<void> {
  const handle = baton.client.workflow.getHandle<DelegationWorkflow>(pending.delegationId);
  await callTemporal(baton, () =>
    sendUpdate(
      what,
      () => update(handle),
      () => handle.describe(),
    ),
  );
}

/** A delegation's or a graph node's question, answered through the delegation's `answer` Update. */
function answerDelegation(baton: BatonClient, caller: Caller, pending: TaskRequest, parts: Part[], updateId: string): Promise<void> {
  return updateAsked(baton, pending, `the answer to ${pending.requestId}`, (handle) =>
    handle.executeUpdate(answerUpdate, { args: [{ requestId: pending.requestId, parts, caller }], updateId }),
  );
}

/**
 * A delegation's or a graph node's authentication request, answered with a credential by name through
 * the `authorize` Update. A name the request does not list is refused here; the workflow checks it again.
 */
export async function authorizeDelegation(
  baton: BatonClient,
  caller: Caller,
  pending: TaskRequest,
  credential: string,
  updateId: string,
): Promise<void> {
  const allowed = pending.credentials;
  if (!CredentialNameSchema.safeParse(credential).success || (allowed && !allowed.includes(credential)))
    throw new InvalidRequestError(
      `credential "${credential}" is not one this task may send; it accepts: ${allowed?.join(', ') || '(none configured)'}`,
    );
  return updateAsked(baton, pending, `the authorization of ${pending.requestId}`, (handle) =>
    handle.executeUpdate(authorizeUpdate, { args: [{ requestId: pending.requestId, credential, caller }], updateId }),
  );
}

/** A call to Temporal on the clients' connection, its failures turned into Baton's. */
function callTemporal<T>(baton: BatonClient, fn: () => Promise<T>): Promise<T> {
  const client = baton.client;
  return temporalCall({ connection: client.connection, namespace: client.options.namespace }, fn);
}

export class DelegationRunner implements TaskRunner {
  readonly workflowType = 'delegationWorkflow';
  readonly startedStatus: DelegationRecord['status'] = 'STARTING';

  constructor(
    private readonly baton: BatonClient,
    private readonly delegate: NonNullable<ServedAgentConfig['delegate']>,
  ) {}

  async start(caller: Caller, id: string, parts: Part[], served: { service: string; contextId: string }): Promise<boolean> {
    const d = this.delegate;
    const starting = findingStarter(this.baton.client);
    await this.baton.as(caller).start({
      agent: d.agent,
      parts,
      ...(d.policy ? { policy: d.policy } : {}),
      ...(d.contract ? { contract: d.contract } : {}),
      served: { taskId: id, ...served },
      starter: starting.starter,
    });
    return !starting.found();
  }

  read(_caller: Caller, id: string, status: string, result?: { value: unknown }): Promise<TaskRead> {
    return readDelegationTask(this.baton, id, status === 'COMPLETED', result);
  }

  answer(caller: Caller, pending: TaskRequest, parts: Part[], updateId: string): Promise<void> {
    return answerDelegation(this.baton, caller, pending, parts, updateId);
  }

  async cancel(caller: Caller, id: string): Promise<void> {
    await this.baton.as(caller).cancel(id, 'canceled by the A2A caller');
  }
}

/** The graph spec of one task: the served graph's nodes, the caller's parts where a node takes them. */
export function servedGraphSpec(graph: NonNullable<ServedAgentConfig['graph']>, parts: Part[]): GraphSpecInput {
  const request = (n: ServedNode): Part[] => [...(n.text ? [{ text: n.text }] : (n.parts ?? [])), ...(n.withRequest ? parts : [])];
  return {
    failurePolicy: graph.failurePolicy,
    concurrency: graph.concurrency,
    nodes: graph.nodes.map((n) => ({
      id: n.id,
      agent: n.agent,
      parts: request(n),
      dependsOn: n.dependsOn,
      ...(n.refines ? { refines: n.refines } : {}),
      ...(n.acceptance ? { acceptance: n.acceptance } : {}),
      ...(n.contract ? { contract: n.contract } : {}),
    })),
  };
}

const WAITING = new Set(['WAITING_INPUT', 'WAITING_AUTH']);

/**
 * A starter that notes whether the workflow existed already: the clients find it (a retried message)
 * without saying so, and the served agent answers a task it did not start by reading it.
 */
function findingStarter(client: Client): { starter: WorkflowStarter; found(): boolean } {
  let found = false;
  return {
    starter: (type, options) =>
      client.workflow.start(type, options).catch((err: unknown) => {
        if (err instanceof WorkflowExecutionAlreadyStartedError) found = true;
        throw err;
      }),
    found: () => found,
  };
}

export class GraphRunner implements TaskRunner {
  readonly workflowType = 'taskGraphWorkflow';
  readonly startedStatus: GraphRecord['status'] = 'RUNNING';

  constructor(
    private readonly baton: BatonClient,
    private readonly graphs: GraphClient,
    private readonly graph: NonNullable<ServedAgentConfig['graph']>,
  ) {}

  async start(caller: Caller, id: string, parts: Part[], served: { service: string; contextId: string }): Promise<boolean> {
    const starting = findingStarter(this.graphs.client);
    await this.graphs
      .as(caller)
      .start(servedGraphSpec(this.graph, parts), { served: { taskId: id, ...served }, starter: starting.starter });
    return !starting.found();
  }

  read(caller: Caller, id: string, status: string): Promise<TaskRead> {
    return readGraphTask(this.baton, this.graphs, caller, id, status);
  }

  answer(caller: Caller, pending: TaskRequest, parts: Part[], updateId: string): Promise<void> {
    return answerDelegation(this.baton, caller, pending, parts, updateId);
  }

  async cancel(caller: Caller, id: string): Promise<void> {
    await this.graphs.as(caller).cancel(id, 'canceled by the A2A caller');
  }
}

/** A task that is one delegation, read: a closed delegation's record is its result; a running one answers the status Query. */
async function readDelegationTask(baton: BatonClient, id: string, closed: boolean, result?: { value: unknown }): Promise<TaskRead> {
  const handle = baton.client.workflow.getHandle(id);
  const record = readRecord(closed ? (result ? result.value : await handle.result()) : await handle.query(statusQuery));
  return { state: delegationStatus(record), results: record.outcome?.kind === 'ACCEPTED' ? [record] : [], turns: record.turns };
}

/**
 * A task that is a graph, read: its outcome and end nodes' results, or the question of a node that
 * waits. The graph's ownership was checked by the read's describe; its nodes are its own.
 */
async function readGraphTask(batonClient: BatonClient, graphs: GraphClient, caller: Caller, id: string, status: string): Promise<TaskRead> {
  const graph = await graphs.as(caller).showChecked(id, status, { limit: 100 });
  const baton = batonClient.as(caller);
  if (graph.status === 'SETTLED') {
    const results = graph.outcome?.kind === 'ACCEPTED' ? await Promise.all(endNodes(graph).map((d) => baton.show(d))) : [];
    return { state: graphStatus(graph), results: results.filter((r) => r.outcome?.kind === 'ACCEPTED') };
  }
  // A node that waits makes the task wait: its question is the task's (the first such node, in spec order).
  const asking = graph.nodes.find((n) => n.status === 'RUNNING' && WAITING.has(n.delegation?.status ?? ''));
  const waiting = asking
    ? readRecord(await callTemporal(batonClient, () => batonClient.client.workflow.getHandle(asking.delegationId).query(statusQuery)))
    : undefined;
  return { state: graphStatus(graph, waiting), results: [] };
}

/**
 * The application's own workflow (`workflow`): started with a ServedTaskInput; it shows its state
 * through `wireTaskOf()` (the `servedTask` Query) and takes answers through its `servedMessage` Update.
 */
export class WorkflowRunner implements TaskRunner {
  readonly workflowType: string;
  /** The workflow's execution status, as its reads give it while it runs. */
  readonly startedStatus = 'RUNNING';

  constructor(
    private readonly baton: BatonClient,
    private readonly workflow: NonNullable<ServedAgentConfig['workflow']>,
  ) {
    this.workflowType = workflow.type;
  }

  async start(caller: Caller, id: string, parts: Part[], served: { service: string; contextId: string }): Promise<boolean> {
    const input: ServedTaskInput = { parts, caller, ...served };
    const client = this.baton.client;
    return callTemporal(this.baton, () =>
      client.workflow
        .start(this.workflow.type, {
          workflowId: id,
          taskQueue: this.workflow.taskQueue ?? this.baton.taskQueue,
          args: [input],
          typedSearchAttributes: [
            { key: SA_TENANT, value: caller.tenant },
            { key: SA_SERVICE, value: served.service },
            { key: SA_SERVED_CONTEXT, value: served.contextId },
          ],
          staticSummary: `A2A task of ${served.service}`,
          // A retried message finds the task its first send started, running or ended.
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        })
        .then(
          () => true,
          (err: unknown) => {
            if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
            return false;
          },
        ),
    );
  }

  read(_caller: Caller, id: string, status: string): Promise<TaskRead> {
    return readWorkflowTask(this.baton, id, status);
  }

  async answer(caller: Caller, pending: TaskRequest, parts: Part[], updateId: string): Promise<void> {
    const handle = this.baton.client.workflow.getHandle(pending.delegationId);
    await sendUpdate(
      `the answer to ${pending.requestId}`,
      () => handle.executeUpdate(servedMessageUpdate, { args: [{ requestId: pending.requestId, parts, caller }], updateId }),
      () => handle.describe(),
    );
  }

  async cancel(_caller: Caller, id: string): Promise<void> {
    // The workflow's waits end in a CancelledFailure; unless it catches it, it ends CANCELLED.
    await this.baton.client.workflow.getHandle(id).cancel();
  }
}

/** How an execution that ended without completing its task is shown. */
const ENDED_AS: Record<string, ServedStatus['state']> = { CANCELLED: 'TASK_STATE_CANCELED' };

/** An application's served workflow, read: its `servedTask` Query, or how its execution ended. */
async function readWorkflowTask(baton: BatonClient, id: string, status: string): Promise<TaskRead> {
  if (status !== 'RUNNING' && status !== 'COMPLETED') {
    const state = ENDED_AS[status] ?? 'TASK_STATE_FAILED';
    return { state: { state, status, outcome: { kind: status, reasons: [`the workflow ended ${status.toLowerCase()}`] } }, results: [] };
  }
  const shown = await baton.client.workflow.getHandle(id).query(servedTaskQuery);
  return { ...workflowTaskState(id, shown, status), results: [] };
}

/** A served workflow's own state as the caller's (pure). */
export function workflowTaskState(id: string, shown: ServedTaskState, status: string): Omit<TaskRead, 'results'> {
  // A workflow that returned without ending its task did not do what was asked.
  if (status === 'COMPLETED' && !TERMINAL_STATES.has(shown.state))
    return {
      state: {
        state: 'TASK_STATE_FAILED',
        status,
        outcome: { kind: 'FAILED', reasons: ['the workflow ended without completing the task'] },
      },
    };
  const q = shown.question;
  return {
    state: {
      state: shown.state,
      status,
      ...(q && shown.state === 'TASK_STATE_INPUT_REQUIRED'
        ? { pending: { delegationId: id, kind: 'input' as const, requestId: q.requestId, prompt: q.parts, observedAt: q.askedAt } }
        : {}),
      ...(shown.state === 'TASK_STATE_FAILED' || shown.state === 'TASK_STATE_REJECTED'
        ? { outcome: { kind: shown.state === 'TASK_STATE_FAILED' ? 'FAILED' : 'REJECTED', reasons: shown.reasons } }
        : {}),
      ...(shown.changedAt ? { changedAt: shown.changedAt } : {}),
    },
    ...(shown.state === 'TASK_STATE_COMPLETED' ? { artifacts: shown.artifacts } : {}),
  };
}

/** How a task run by `workflowType` is read, for whoever only reads it (the watch behind callers' webhooks). */
export function taskReading(workflowType: string, baton: BatonClient, graphs: GraphClient): Pick<TaskRunner, 'workflowType' | 'read'> {
  return {
    workflowType,
    read: (caller, id, status, result) =>
      workflowType === 'delegationWorkflow'
        ? readDelegationTask(baton, id, status === 'COMPLETED', result)
        : workflowType === 'taskGraphWorkflow'
          ? readGraphTask(baton, graphs, caller, id, status)
          : readWorkflowTask(baton, id, status),
  };
}
