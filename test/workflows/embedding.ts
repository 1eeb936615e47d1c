/**
 * Workflows a user might write around Baton, for the embedding tests: a parent that delegates and
 * answers the agent's question from a second workflow by Signal, and one that only waits.
 */
import { getExternalWorkflowHandle, ParentClosePolicy, startChild } from '@temporalio/workflow';
import {
  answerSignal,
  authorizeSignal,
  delegate,
  servedTask,
  type Caller,
  type DelegationResult,
  type Part,
  type ServedTaskInput,
  type ServedTaskState,
} from '../../workflows/api';

export interface VerifyInput {
  parts: Part[];
  caller: Caller;
  /** The serial number the lookup workflow answers with. */
  serial: string;
  /** Where Baton runs; default this workflow's queue. */
  batonTaskQueue?: string;
}

/** Delegates to supplier-qa; when it asks, a second workflow answers by Signal. */
export async function verifyWithLookup(input: VerifyInput): Promise<DelegationResult> {
  return delegate({
    agent: 'supplier-qa',
    parts: input.parts,
    caller: input.caller,
    ...(input.batonTaskQueue ? { taskQueue: input.batonTaskQueue } : {}),
    onRequest: async ({ delegationId, request }) => {
      await startChild(answerBySignal, {
        workflowId: `${request.requestId}/lookup`,
        args: [
          {
            delegationId,
            requestId: request.requestId,
            parts: [{ text: input.serial }],
            caller: { tenant: input.caller.tenant, user: 'warehouse' },
          },
        ],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    },
  });
}

/** Delegates and waits; answers come from outside (or never). */
export async function delegateAndWait(input: { parts: Part[]; caller: Caller }): Promise<DelegationResult> {
  return delegate({ agent: 'supplier-qa', parts: input.parts, caller: input.caller });
}

/** The second workflow: sends an answer to a delegation by Signal, as any workflow can. */
export async function answerBySignal(input: { delegationId: string; requestId: string; parts: Part[]; caller: Caller }): Promise<void> {
  await getExternalWorkflowHandle(input.delegationId).signal(answerSignal, {
    requestId: input.requestId,
    parts: input.parts,
    caller: input.caller,
  });
}

/** Sends an arbitrary payload as an answer Signal (malformed ones included). */
export async function sendRawAnswer(input: { delegationId: string; payload: unknown }): Promise<void> {
  await getExternalWorkflowHandle(input.delegationId).signal(answerSignal, input.payload as never);
}

/** Delegates to portal-gate; when it asks for authentication, a second workflow authorizes by Signal. */
export async function stockWithCredential(input: { caller: Caller; credential: string }): Promise<DelegationResult> {
  return delegate({
    agent: 'portal-gate',
    text: 'Stock for BOLT-M8?',
    caller: input.caller,
    onRequest: async ({ delegationId, request }) => {
      await startChild(authorizeBySignal, {
        workflowId: `${request.requestId}/vault`,
        args: [{ delegationId, requestId: request.requestId, credential: input.credential, caller: input.caller }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    },
  });
}

/** Authorizes a delegation's pending AUTH_REQUIRED by Signal, naming the credential (never the token). */
export async function authorizeBySignal(input: {
  delegationId: string;
  requestId: string;
  credential: string;
  caller: Caller;
}): Promise<void> {
  await getExternalWorkflowHandle(input.delegationId).signal(authorizeSignal, {
    requestId: input.requestId,
    credential: input.credential,
    caller: input.caller,
  });
}

/**
 * An application's own workflow served as an A2A agent (`serve.services.<name>.workflow`): it asks
 * the caller which product, has supplier-qa verify the report, and completes with the accepted verdict.
 */
export async function servedOrderCheck(input: ServedTaskInput): Promise<ServedTaskState> {
  const task = servedTask(input);
  const product = await task.ask([{ text: 'Which product (serial number) is it about?' }]);
  const result = await delegate({ agent: 'supplier-qa', caller: input.caller, parts: [...task.request, ...product] });
  if (!result.accepted) return task.fail([`${result.outcome}: ${result.reasons.join('; ')}`]);
  return task.complete(result.artifacts.map((a) => ({ ...(a.name ? { name: a.name } : {}), parts: a.parts ?? [] })));
}
