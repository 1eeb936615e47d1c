/**
 * The embedding API: a user's own workflow runs a delegation as a child workflow and awaits a typed
 * result. Runs in the workflow sandbox.
 */
import {
  ApplicationFailure,
  ChildWorkflowFailure,
  ParentClosePolicy,
  isCancellation,
  log,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { Part } from '../src/shared/a2a-types';
import { brokenResult, resultOf, type DelegationResult } from '../src/shared/delegation-result';
import type { Caller, Contract, DelegationInput, RequestNotice } from '../src/shared/delegation-types';
import { FIRST_SEND_FLAGS } from '../src/shared/delegation-state';
import { delegationSchemas } from '../src/shared/schemas-on-demand';
import { startingAttributes } from '../src/shared/search-attributes';
import { delegationWorkflow } from './delegation';
import { requestSignal } from './messages';

export interface DelegateOptions {
  /** The agent's name in the worker's Baton config. */
  agent: string;
  /**
   * The first turn. Give `parts`, or `text` as a shorthand for one text part.
   * @default none: then `text` must be given
   */
  parts?: Part[];
  /**
   * The first turn as one text part.
   * @default none: then `parts` must be given
   */
  text?: string;
  /** Who owns the delegation: only callers of this tenant may answer, review or cancel it. */
  caller: Caller;
  /**
   * The delegation's workflow id.
   * @default `<this workflow's id>/<agent>-<n>`, where n counts this workflow's delegations to that
   * agent, so a replay or retry gets the same id
   */
  id?: string;
  /**
   * Acceptance policy by name.
   * @default the one configured for the agent (`agents.<name>.acceptance`)
   */
  policy?: string;
  /**
   * Continue a remote conversation the agent started earlier.
   * @default none: the agent starts a new context
   */
  contextId?: string;
  /**
   * Remote tasks this work refers to (sent as the message's `referenceTaskIds`).
   * @default none
   */
  referenceTaskIds?: string[];
  /**
   * Limits over the agent's configured defaults (deadline, input rounds, remote calls).
   * @default the agent's `contract` (no deadline, 10 input rounds, 500 remote calls)
   */
  contract?: Contract;
  /**
   * Task queue of the worker that runs Baton's workflow and activities. Name Baton's queue to use a
   * separate Baton worker.
   * @default this workflow's own queue (the worker was built with `withBaton`)
   */
  taskQueue?: string;
  /**
   * Called (inside this workflow) each time the delegation starts waiting for input, authentication
   * or review, with the request id an answer must name. Typically it starts a workflow, or signals
   * one, that answers with `answerSignal`.
   * @default none: answers come from outside (CLI, client, UI)
   */
  onRequest?: (notice: RequestNotice) => void | Promise<void>;
}

/** A running delegation started from a workflow. */
export interface DelegationHandle {
  /** The delegation's workflow id: where `answerSignal`, `authorizeSignal` and the Updates go. */
  id: string;
  /** Resolves with the typed result once the delegation settles; rejects only on cancellation. */
  result(): Promise<DelegationResult>;
}

// Workflow module state is per workflow execution, so these are this workflow's own.
const listeners = new Map<string, NonNullable<DelegateOptions['onRequest']>>();
const perAgent = new Map<string, number>();
let listening = false;

function listen(): void {
  if (listening) return;
  listening = true;
  setHandler(requestSignal, async (notice) => {
    const onRequest = listeners.get(notice.delegationId);
    if (!onRequest) {
      log.warn('a delegation asked for something, but no onRequest is registered for it', { delegationId: notice.delegationId });
      return;
    }
    await onRequest(notice);
  });
}

function inputOf(options: DelegateOptions): DelegationInput {
  const parts = options.parts ?? (options.text !== undefined ? [{ text: options.text }] : undefined);
  const parsed = delegationSchemas().DelegationInputSchema.safeParse({
    agent: options.agent,
    parts,
    tenant: options.caller?.tenant,
    owner: options.caller?.user,
    policy: options.policy,
    contextId: options.contextId,
    referenceTaskIds: options.referenceTaskIds,
    contract: options.contract,
    ...(options.onRequest ? { notify: { workflowId: workflowInfo().workflowId } } : {}),
    ...FIRST_SEND_FLAGS,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw ApplicationFailure.nonRetryable(
      `invalid delegate options: ${issue?.path.join('.') || 'options'}: ${issue?.message}`,
      'InvalidRequest',
    );
  }
  return parsed.data;
}

/**
 * Starts a delegation as a child workflow. Cancelling the calling workflow (or the scope this runs
 * in) cancels the delegation, which cancels the remote task and settles as CANCELED; if the caller
 * closes any other way, the delegation is asked to cancel too.
 */
export async function startDelegation(options: DelegateOptions): Promise<DelegationHandle> {
  const input = inputOf(options);
  const n = (perAgent.get(input.agent) ?? 0) + 1;
  perAgent.set(input.agent, n);
  const id = options.id ?? `${workflowInfo().workflowId}/${input.agent}-${n}`;
  if (options.onRequest) {
    listeners.set(id, options.onRequest);
    listen();
  }
  const child = await startChild(delegationWorkflow, {
    workflowId: id,
    args: [input],
    typedSearchAttributes: startingAttributes(input),
    ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}),
    // The default cancellation type waits for the child to finish cancelling, so the caller sees the
    // real end (the remote task's CancelTask answer), not just the request to cancel.
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
  });
  return {
    id,
    result: async () => {
      try {
        return resultOf(await child.result());
      } catch (err) {
        if (isCancellation(err)) throw err;
        if (err instanceof ChildWorkflowFailure)
          return brokenResult(id, `the delegation workflow did not finish: ${err.cause?.message ?? err.message}`);
        throw err;
      } finally {
        listeners.delete(id);
      }
    },
  };
}

/** Runs a delegation as a child workflow and waits for its typed result. */
export async function delegate(options: DelegateOptions): Promise<DelegationResult> {
  return (await startDelegation(options)).result();
}
