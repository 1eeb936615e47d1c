/**
 * Ids of served tasks. A task's id is derived from the service, the caller and the messageId of the
 * message that started it, so a SendMessage retried after a lost response finds the task the first
 * one started instead of starting a second (the official SDKs' servers make a new one each time).
 * It is keyed with the server's secret (`serve.taskIdKeyFromEnv`): nobody who lacks it can compute
 * another caller's future task id and take it first.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { ConfigError } from '../config/config-error';
import type { Caller } from '../shared/delegation-types';
import { SERVED_TASK_PREFIX } from '../shared/ids';

export { SERVED_TASK_PREFIX };

const fields = (...values: string[]): string => values.map((f) => `${f.length}:${f}`).join('');

const digest = (...values: string[]): string =>
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
  return `ctx-${digest('context', taskId)}`;
}

/** Temporal's Update id for a follow-up message: the same message sent twice answers once. */
export function turnUpdateId(taskId: string, caller: Caller, messageId: string): string {
  return `a2a-turn-${digest('turn', taskId, caller.tenant, caller.user, messageId)}`;
}

/**
 * The key served task ids are made with: the variable `variable` names (at least 32 characters, the
 * same on every replica); unset, a key of this process alone, with a warning (a retried SendMessage
 * that reaches another replica, or this one restarted, then starts a second task).
 */
export function taskIdKey(variable: string, logger: Logger, env: NodeJS.ProcessEnv = process.env): Buffer {
  const value = env[variable];
  const problem = taskIdKeyProblem(variable, env);
  if (problem) throw new ConfigError(problem);
  if (value) return Buffer.from(value, 'utf8');
  logger.warn(
    { variable },
    `${variable} is not set: served task ids are keyed for this process alone, so a retried SendMessage that reaches another replica (or this one restarted) starts a second task; set it to the same secret on every replica`,
  );
  return randomBytes(32);
}

/** What is wrong with the task id key `variable` holds, when it is set: shorter than 32 characters. */
export function taskIdKeyProblem(variable: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[variable];
  return value !== undefined && value.length < 32
    ? `serve.taskIdKeyFromEnv: ${variable} must hold at least 32 characters (a guessable key lets callers take each other's task ids)`
    : undefined;
}
