/**
 * Ids of served tasks. A task's id is derived from the service, the caller and the messageId of the
 * message that started it, so a SendMessage retried after a lost response finds the task the first
 * one started instead of starting a second (the official SDKs' servers make a new one each time).
 */
import { createHash } from 'node:crypto';
import type { Caller } from '../shared/delegation-types';

/** Served tasks' ids start with this (and the service's name), apart from `dlg-` delegations. */
export const SERVED_TASK_PREFIX = 'a2a-';

const digest = (...fields: string[]): string =>
  createHash('sha256')
    .update(fields.map((f) => `${f.length}:${f}`).join(''))
    .digest('hex')
    .slice(0, 32);

/** The task (and workflow) id for a message that starts a task: `a2a-<service>-<32 hex>`. */
export function servedTaskId(service: string, caller: Caller, messageId: string): string {
  return `${SERVED_TASK_PREFIX}${service}-${digest('task', service, caller.tenant, caller.user, messageId)}`;
}

/** The contextId Baton gives a task whose first message named none. */
export function servedContextId(taskId: string): string {
  return `ctx-${digest('context', taskId)}`;
}

/** Temporal's Update id for a follow-up message: the same message sent twice answers once. */
export function turnUpdateId(taskId: string, caller: Caller, messageId: string): string {
  return `a2a-turn-${digest('turn', taskId, caller.tenant, caller.user, messageId)}`;
}
