/**
 * Ids of served tasks. A task's id is derived from the service, the caller and the messageId of the
 * message that started it, so a SendMessage retried after a lost response finds the task the first
 * one started instead of starting a second (the official SDKs' servers make a new one each time).
 * It is keyed with the server's secret (`serve.taskIdKeyFromEnv`): nobody who lacks it can compute
 * another caller's future task id and take it first.
 */
import { createHash, createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import { sharedKey, sharedKeyProblem, type SharedKeyUse } from '../config/shared-key';
import type { Caller } from '../shared/delegation-types';
import { SERVED_TASK_PREFIX } from '../shared/ids';

export { SERVED_TASK_PREFIX };

const fields = (...values: string[]): string => values.map((f) => `${f.length}:${f}`).join('');

/** SHA-256 of `values`, each length-prefixed (so no two lists collide), as 32 hex characters: ids derived from their parts. */
export const fieldsDigest = (...values: string[]): string =>
  createHash('sha256')
    .update(fields(...values))
    .digest('hex')
    .slice(0, 32);

/** The task (and workflow) id for a message that starts a task: `a2a-<service>-<32 hex>`, keyed with `key`. */
export function servedTaskId(key: Buffer, service: string, caller: Caller, messageId: string): string {
  const mac = createHmac('sha256', key)
    .update(fields('task', service, caller.tenant, caller.user, messageId))
    .digest('hex');
  return `${SERVED_TASK_PREFIX}${service}-${mac.slice(0, 32)}`;
}

/** The contextId Baton gives a task whose first message named none. */
export function servedContextId(taskId: string): string {
  return `ctx-${fieldsDigest('context', taskId)}`;
}

/** Temporal's Update id for a follow-up message: the same message sent twice answers once. */
export function turnUpdateId(taskId: string, caller: Caller, messageId: string): string {
  return `a2a-turn-${fieldsDigest('turn', taskId, caller.tenant, caller.user, messageId)}`;
}

/** The served task id key's use, for its messages. */
export const TASK_ID_KEY: SharedKeyUse = {
  setting: 'serve.taskIdKeyFromEnv',
  guessable: "a guessable key lets callers take each other's task ids",
  unshared:
    'served task ids are keyed for this process alone, so a retried SendMessage that reaches another replica (or this one restarted) starts a second task',
};

/** The key served task ids are made with: the variable `variable` names, or one of this process alone. */
export function taskIdKey(variable: string, logger: Logger, env: NodeJS.ProcessEnv = process.env): Buffer {
  return sharedKey(variable, TASK_ID_KEY, logger, env);
}

/** What is wrong with the task id key `variable` holds, when it is set: shorter than 32 characters. */
export function taskIdKeyProblem(variable: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return sharedKeyProblem(variable, TASK_ID_KEY, env);
}
