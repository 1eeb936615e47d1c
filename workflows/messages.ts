/**
 * Update, Signal and Query definitions shared by workflows and clients, and the signatures clients
 * start Baton's workflows by (so a client depends on this contract, not on the workflows' code).
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { DelegationCarry } from '../src/shared/delegation-carry';
import type { GraphCarry } from '../src/shared/graph-carry';
import type {
  Answer,
  Authorize,
  CancelRequest,
  DelegationInput,
  DelegationRecord,
  RemoteTaskNotice,
  RequestNotice,
  Review,
} from '../src/shared/delegation-types';
import type { DelegationResult } from '../src/shared/delegation-result';
import type { FollowUp, GraphInput, GraphPageRequest, GraphRecord } from '../src/shared/graph-types';
import type { PushTarget, TaskPushCarry, TaskPushInput, TaskPushView } from '../src/shared/task-push-types';
import type { ServedMessage, ServedTaskState } from '../src/shared/served-task-types';

/** `delegationWorkflow` (workflows/delegation.ts), as clients start it; `carried` is only its own. */
export type DelegationWorkflow = (input: DelegationInput, carried?: DelegationCarry) => Promise<DelegationRecord>;
/** `taskGraphWorkflow` (workflows/task-graph.ts). */
export type TaskGraphWorkflow = (input: GraphInput, carried?: GraphCarry) => Promise<GraphRecord>;
/** `taskPushWorkflow` (workflows/task-push.ts). */
export type TaskPushWorkflow = (input: TaskPushInput, carried?: TaskPushCarry) => Promise<TaskPushView>;

/** The full delegation record (what `baton show --json` prints). */
export const statusQuery = defineQuery<DelegationRecord>('status');

/** Answers the pending INPUT_REQUIRED request; resolves once the answer went out as a new turn. */
export const answerUpdate = defineUpdate<{ messageId: string }, [Answer]>('answer');

/** Authorizes the pending AUTH_REQUIRED request with a reference to a credential (never the credential). */
export const authorizeUpdate = defineUpdate<{ messageId: string }, [Authorize]>('authorize');

/** Cancels the delegation and, through it, the remote task; resolves with the settled record. */
export const cancelUpdate = defineUpdate<DelegationRecord, [CancelRequest]>('cancel');

/** Decides a result waiting for review; resolves with the settled record. */
export const reviewUpdate = defineUpdate<DelegationRecord, [Review]>('review');

/**
 * The `answer` Update's payload as a Signal, for other workflows (a workflow can signal but not
 * update). The same checks apply; a refused one is kept in the record's `refusedSignals`.
 */
export const answerSignal = defineSignal<[Answer]>('answerSignal');

/** The `authorize` Update's payload as a Signal; refused ones are recorded like `answerSignal`'s. */
export const authorizeSignal = defineSignal<[Authorize]>('authorizeSignal');

/**
 * Sent by a delegation to the workflow named in its input's `notify` when it starts waiting for
 * input, authentication or review, so that workflow can route an answer back by Signal.
 */
export const requestSignal = defineSignal<[RequestNotice]>('batonRequest');

/** Sent to the `notify` workflow (when it asked with `remoteTask`) once the remote task is known. */
export const remoteTaskSignal = defineSignal<[RemoteTaskNotice]>('batonRemoteTask');

/**
 * Sent to the `notify` workflow (when it asked with `settled`) as the delegation ends: its result, with
 * artifacts by reference (no parts).
 */
export const settledSignal = defineSignal<[DelegationResult]>('batonSettled');

/** One page of the graph record (what `baton graph show --json` prints); the first 100 nodes without a request. */
export const graphStatusQuery = defineQuery<GraphRecord, [GraphPageRequest?]>('graphStatus');

/** Adds a node to a running graph; resolves with its id and delegation id once it is in the graph. */
export const addFollowUpUpdate = defineUpdate<{ nodeId: string; delegationId: string }, [FollowUp]>('addFollowUp');

/** Cancels a graph: running nodes are cancelled (and their remote tasks), pending ones skipped. */
export const cancelGraphUpdate = defineUpdate<GraphRecord, [CancelRequest]>('cancelGraph');

/** From the webhook: the agent pushed an event about `taskId` (verified, deduplicated). A hint: the workflow reads the task. */
export const pushSignal = defineSignal<[{ taskId: string }]>('batonPush');

/** What a served task's push workflow keeps and owes (never a credential). */
export const pushStateQuery = defineQuery<TaskPushView>('pushState');

/** Keeps (or replaces) one caller webhook of a served task; resolves with what is kept, without secrets. */
export const setPushTargetUpdate = defineUpdate<TaskPushView['configs'][number], [PushTarget]>('setPushTarget');

/** Forgets one caller webhook of a served task; resolves with whether there was one. */
export const deletePushTargetUpdate = defineUpdate<boolean, [string]>('deletePushTarget');

/** What an application's served workflow shows its A2A caller (registered by `servedTask()`). */
export const servedTaskQuery = defineQuery<ServedTaskState>('servedTask');

/** The A2A caller's answer to what a served workflow asks (registered by `servedTask()`). */
export const servedMessageUpdate = defineUpdate<void, [ServedMessage]>('servedMessage');
