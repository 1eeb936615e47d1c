/**
 * Push notifications to the callers of served agents: what the task's push workflow keeps (the
 * callers' webhooks, the events each is owed) and what it shows. Workflow-safe: plain JSON only.
 * A webhook's credentials arrive sealed (AES-GCM, `serve.push.keys`): history never holds them in clear.
 */
import type { TaskState } from './a2a-types';
import type { Caller } from './delegation-types';

/** Bytes sealed under one of `serve.push.keys`, by the key's id. */
export interface SealedSecret {
  keyId: string;
  /** `iv | ciphertext | tag`, base64. */
  sealed: string;
}

/** One caller's webhook for a task (A2A TaskPushNotificationConfig), as kept in history. */
export interface PushTarget {
  /** The config id: the caller's, or one derived from the URL. */
  id: string;
  url: string;
  /** `Authorization: <scheme> <credentials>` on every POST (A2A AuthenticationInfo). */
  authentication?: { scheme: string; credentials?: SealedSecret };
  /** The task-specific token the caller gave, sent as X-A2A-Notification-Token. */
  token?: SealedSecret;
}

/** A task's status as a push carries it (the served task's wire status). */
export interface PushedStatus {
  state: TaskState;
  timestamp: string;
  message?: unknown;
}

/**
 * One notification owed to a webhook: the task as it is when delivered (`task`: a new webhook's first,
 * and the task's end, with its artifacts), or a status change as it was seen (`status`). A change
 * carries its fingerprint (what the caller sees: the state and the question), so a webhook is not
 * told again what the task it was last sent showed already.
 */
export type PushEvent =
  | { seq: number; kind: 'task'; fingerprint?: string }
  | { seq: number; kind: 'status'; fingerprint: string; contextId: string; status: PushedStatus };

/** What the watch over a task saw: a change (with its fingerprint), nothing new for a while, or no task. */
export type TaskChange =
  | { kind: 'changed'; fingerprint: string; contextId: string; status: PushedStatus; ended: boolean }
  | { kind: 'unchanged' }
  | { kind: 'gone' };

/** How long and how often a notification is retried before it is recorded as undelivered. */
export interface PushDelivery {
  attempts: number;
  initialIntervalMs: number;
  maxIntervalMs: number;
}

export interface TaskPushInput {
  /** The served task (its workflow id). */
  taskId: string;
  /** The service it belongs to (`serve.services.<name>`). */
  service: string;
  /** The workflow type of the task (a delegation, a graph, or the application's own). */
  runner: string;
  /** The caller that owns the task: reads go through its tenant's checks. */
  caller: Caller;
  delivery: PushDelivery;
}

/** Which served task, and whose: what the push activities read it as. */
export type ServedTaskRef = Pick<TaskPushInput, 'taskId' | 'service' | 'runner' | 'caller'>;

/** A notification given up on: after its retries, or dropped from a queue that grew too long. */
export interface UndeliveredPush {
  configId: string;
  seq: number;
  /** `task` (a snapshot) or the status's state. */
  what: string;
  reason: string;
  at: string;
}

/** What a task's push workflow shows (a Query, and its result): never a credential. */
export interface TaskPushView {
  taskId: string;
  configs: { id: string; url: string; scheme?: string; hasToken: boolean; owed: number }[];
  delivered: number;
  undelivered: UndeliveredPush[];
  /** The task has ended (or is gone): the workflow ends once every webhook has its notifications. */
  ended: boolean;
}

/** What a push workflow that continues as new carries over. */
export interface TaskPushCarry {
  targets: PushTarget[];
  queues: Record<string, PushEvent[]>;
  fingerprint?: string;
  /** Per webhook, the fingerprint of the task as last posted to it. */
  lastSent?: Record<string, string>;
  seq: number;
  delivered: number;
  undelivered: UndeliveredPush[];
  /**
   * The task had ended and every notification was delivered: the run only keeps the configs for
   * reading (a config deleted after the push workflow closed starts such a run). Absent: false.
   */
  ended?: boolean;
}
