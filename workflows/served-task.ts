/**
 * `servedTask()`: what an application's workflow calls to be served as an A2A agent
 * (`serve.services.<name>.workflow`). It shows the caller the task's state (the `servedTask` Query
 * that Baton reads for GetTask, streams and push), asks the caller questions and takes the answers
 * (the `servedMessage` Update, validated here), and ends the task with artifacts or reasons.
 *
 * @example
 * export async function orderCheck(input: ServedTaskInput): Promise<ServedTaskState> {
 *   const task = servedTask(input);
 *   const order = await task.ask([{ text: 'Which order?' }]);
 *   const result = await delegate({ agent: 'supplier-qa', parts: order, caller: input.caller });
 *   return result.accepted ? task.complete(artifactsOf(result)) : task.fail(result.reasons);
 * }
 */
import { condition, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Part, TaskState } from '../src/shared/a2a-types';
import { servedTaskSchemas } from '../src/shared/schemas-on-demand';
import type { ServedArtifact, ServedTaskInput, ServedTaskState } from '../src/shared/served-task-types';
import { servedMessageUpdate, servedTaskQuery } from './messages';
import { refuse } from './refusal';

export class ServedTask {
  private current: ServedTaskState = { state: 'TASK_STATE_WORKING', artifacts: [], reasons: [] };
  private answer: Part[] | undefined;
  private asked = 0;

  constructor(readonly input: ServedTaskInput) {
    setHandler(servedTaskQuery, () => this.current);
    setHandler(
      servedMessageUpdate,
      (m) => {
        this.answer = m.parts;
        this.set('TASK_STATE_WORKING');
      },
      { validator: (m) => refuse(this.refuseMessage(m)) },
    );
  }

  /** The caller's first message. */
  get request(): Part[] {
    return this.input.parts;
  }

  /** What the caller sees now. */
  get state(): ServedTaskState {
    return this.current;
  }

  /** Shows `parts` to the caller as the task's question (INPUT_REQUIRED) and resolves with its answer. */
  async ask(parts: Part[]): Promise<Part[]> {
    const requestId = `${workflowInfo().workflowId}/ask-${++this.asked}`;
    this.answer = undefined;
    this.set('TASK_STATE_INPUT_REQUIRED', { question: { requestId, parts, askedAt: new Date().toISOString() } });
    await condition(() => this.answer !== undefined);
    const answer = this.answer as unknown as Part[];
    this.answer = undefined;
    return answer;
  }

  /** Ends the task as COMPLETED with `artifacts` (ids given in order when left out); returns the state to return. */
  complete(artifacts: (Omit<ServedArtifact, 'artifactId'> & { artifactId?: string })[]): ServedTaskState {
    return this.set('TASK_STATE_COMPLETED', {
      artifacts: artifacts.map((a, i) => ({ ...a, artifactId: a.artifactId ?? `artifact-${i + 1}` })),
    });
  }

  /** Ends the task as FAILED, saying why. */
  fail(reasons: string[]): ServedTaskState {
    return this.set('TASK_STATE_FAILED', { reasons });
  }

  /** Ends the task as REJECTED (the request is not one this agent takes), saying why. */
  reject(reasons: string[]): ServedTaskState {
    return this.set('TASK_STATE_REJECTED', { reasons });
  }

  /** Why message `m` is not the answer the task waits for, or undefined. */
  private refuseMessage(m: unknown): string | undefined {
    const parsed = servedTaskSchemas().ServedMessageSchema.safeParse(m);
    if (!parsed.success) return `invalid message: ${parsed.error.issues[0]?.message ?? 'malformed'}`;
    const question = this.current.question;
    if (this.current.state !== 'TASK_STATE_INPUT_REQUIRED' || !question) return 'the task is not waiting for a message';
    if (parsed.data.requestId !== question.requestId)
      return `the message answers ${parsed.data.requestId}, but the task asks ${question.requestId}`;
    if (parsed.data.caller.tenant !== this.input.caller.tenant) return 'the task is another tenant’s';
    return undefined;
  }

  private set(state: TaskState, more: Partial<ServedTaskState> = {}): ServedTaskState {
    this.current = { state, artifacts: [], reasons: [], changedAt: new Date().toISOString(), ...more };
    return this.current;
  }
}

/** Registers the handlers that let Baton serve this workflow as an A2A task; call it first. */
export function servedTask(input: ServedTaskInput): ServedTask {
  return new ServedTask(input);
}
