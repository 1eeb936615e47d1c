/**
 * Push notifications to the callers of served agents: the watch over a served task (read until it
 * changes) and one POST of one notification to one caller's webhook. The webhook's address is checked
 * like an agent's (guarded fetch, `serve.push`), its sealed token and credentials opened only here.
 */
import { recordPushDelivery } from '../src/telemetry/metrics';
import { Context, activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { createGuardedFetch, FetchRefusedError } from '../src/a2a/guarded-fetch';
import { findCause } from '../src/a2a/cause';
import { BatonClient } from '../src/client/baton-client';
import { GraphClient } from '../src/client/graph-client';
import { batonDataConverter, encryptionCodec } from '../src/codec/data-converter';
import type { EncryptionCodec } from '../src/codec/encryption-codec';
import { ServePushSchema, type ServePushConfig } from '../src/config/schema';
import { ServedTaskReader } from '../src/served-tasks/task-reader';
import { TaskWatch } from '../src/served-tasks/task-watch';
import { taskReading } from '../src/served-tasks/task-runners';
import { fingerprintOf, TERMINAL_STATES } from '../src/served-tasks/task-view';
import { PUSH_REFUSED } from '../src/shared/task-push-book';
import type { PushEvent, PushTarget, SealedSecret, ServedTaskRef as TaskRef, TaskChange } from '../src/shared/task-push-types';
import { NOTIFICATION_JWT_HEADER, notificationJwt } from '../src/serve/signing-key';
import type { ActivityContext } from './context';

/** The watch returns after this long without a change, so the workflow can continue as new between changes. */
const WATCH_MAX_MS = 5 * 60_000;

/** The longest wait for the task's history between two heartbeats (the activity's heartbeat timeout is 30 s). */
const WAIT_BETWEEN_HEARTBEATS_MS = 15_000;

/** Opens a caller's sealed webhook token or credentials with `serve.push.keys`; refuses (for good) what it cannot. */
function secretOpener(push: ServePushConfig): (secret: SealedSecret) => string {
  let opener: EncryptionCodec | undefined;
  return (secret: SealedSecret): string => {
    if (!push.keys)
      throw ApplicationFailure.nonRetryable(
        "the worker's config has no serve.push.keys to open the webhook's token and credentials: give it the serve section",
        PUSH_REFUSED,
      );
    opener ??= encryptionCodec(push.keys, 'serve.push.keys.keys');
    try {
      return opener.open(secret.keyId, Buffer.from(secret.sealed, 'base64')).toString('utf8');
    } catch {
      throw ApplicationFailure.nonRetryable(
        `the webhook's token or credentials were sealed with key ${secret.keyId}, which this worker's serve.push.keys does not hold (or holds another key under that id)`,
        PUSH_REFUSED,
      );
    }
  };
}

/** The fetch that posts to callers' webhooks: no redirect, bounded in time and size, addresses checked. */
function webhookFetch(push: ServePushConfig, lookup: ActivityContext['deps']['lookup']): ReturnType<typeof createGuardedFetch> {
  return createGuardedFetch(
    {
      allowHttp: push.allowHttp,
      allowPrivateNetwork: push.allowPrivateNetwork,
      maxResponseBytes: 64 * 1024,
      connectTimeoutMs: Math.min(5_000, push.timeoutMs),
      readTimeoutMs: push.timeoutMs,
      // A webhook that redirects is refused: the caller named where its notifications go.
      maxRedirects: 0,
      owner: 'serve.push',
    },
    { ...(lookup ? { lookup } : {}) },
  );
}

/** How the push workflow's activities read a served task: as its caller, through the served-task service's reader. */
function servedTaskReader(ctx: ActivityContext, ref: TaskRef): ServedTaskReader {
  const { client } = Context.current();
  const dataConverter = batonDataConverter(ctx.deps.config);
  const opts = {
    namespace: client.options.namespace,
    taskQueue: activityInfo().taskQueue,
    caller: ref.caller,
    ...(dataConverter ? { dataConverter } : {}),
  };
  const baton = new BatonClient(client.connection, opts);
  const graphs = new GraphClient(client.connection, opts);
  return new ServedTaskReader({
    service: ref.service,
    baton,
    runner: taskReading(ref.runner, baton, graphs),
    ...(ctx.deps.store ? { artifacts: ctx.deps.store } : {}),
  });
}

export function taskPushActivities(ctx: ActivityContext) {
  const push: ServePushConfig = ctx.deps.config.serve?.push ?? ServePushSchema.parse({});
  const open = secretOpener(push);
  const guardedFetch = webhookFetch(push, ctx.deps.lookup);
  const readerFor = (ref: TaskRef): ServedTaskReader => servedTaskReader(ctx, ref);

  return {
    /**
     * Follows served task `taskId` until what its caller sees changes from `since` (its state, or the
     * question it asks), and says how; `unchanged` after a few minutes, `gone` when there is no task.
     */
    async awaitTaskChange(input: TaskRef & { since?: string }): Promise<TaskChange> {
      const watch = new TaskWatch(readerFor(input), input.taskId, input.caller, { artifacts: false });
      const started = Date.now();
      for (;;) {
        let view;
        try {
          view = await watch.read();
        } catch (err) {
          if (err instanceof TaskNotFoundError) return { kind: 'gone' };
          throw err;
        }
        const fingerprint = fingerprintOf(view);
        if (fingerprint !== input.since)
          return {
            kind: 'changed',
            fingerprint,
            contextId: view.contextId,
            status: view.status,
            ended: TERMINAL_STATES.has(view.status.state),
          };
        const left = WATCH_MAX_MS - (Date.now() - started);
        if (left <= 0) return { kind: 'unchanged' };
        Context.current().heartbeat();
        // Woken by the task's own history (a long poll), not by a timer: the change is delivered at once.
        await watch.changed({
          maxWaitMs: Math.min(left, WAIT_BETWEEN_HEARTBEATS_MS),
          failPauseMs: ctx.poll.maxMs,
          signal: Context.current().cancellationSignal,
        });
      }
    },

    /**
     * POSTs one notification (an A2A StreamResponse) to one caller's webhook: the task as it is now,
     * or the status change; says what the task showed in it (its fingerprint). A 2xx delivers it; 408, 429, 5xx and network faults are tried again; any
     * other answer, or an address Baton may not post to, is final (PushRefused).
     */
    async deliverPush(input: TaskRef & { target: PushTarget; event: PushEvent }): Promise<{ status: number; fingerprint: string }> {
      const { target, event } = input;
      let body: unknown;
      let fingerprint = event.fingerprint ?? '';
      if (event.kind === 'task') {
        try {
          // Read as a watch reads (after the workflow task under way): never a Query that waits on a replay.
          const task = await new TaskWatch(readerFor(input), input.taskId, input.caller).read();
          fingerprint = fingerprintOf(task);
          body = { task };
        } catch (err) {
          if (err instanceof TaskNotFoundError)
            throw ApplicationFailure.nonRetryable(`task ${input.taskId} no longer exists`, PUSH_REFUSED);
          throw err;
        }
      } else {
        body = { statusUpdate: { taskId: input.taskId, contextId: event.contextId, status: event.status } };
      }
      const headers: Record<string, string> = { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' };
      const auth = target.authentication;
      if (auth) headers.authorization = auth.credentials ? `${auth.scheme} ${open(auth.credentials)}` : auth.scheme;
      // A2A 1.0 names no header for the token; the SDKs send it as X-A2A-Notification-Token.
      if (target.token) headers['x-a2a-notification-token'] = open(target.token);
      const text = JSON.stringify(body);
      // With Baton's signing key: a JWT over the task and this very body, verifiable at /.well-known/jwks.json.
      const signing = ctx.deps.config.serve?.signing;
      if (signing)
        headers[NOTIFICATION_JWT_HEADER.toLowerCase()] = await notificationJwt(signing, {
          issuer: ctx.deps.config.serve?.publicUrl?.replace(/\/$/, '') ?? 'baton',
          audience: target.url,
          taskId: input.taskId,
          body: text,
        });
      const origin = new URL(target.url).origin;
      let status: number;
      try {
        const res = await guardedFetch(target.url, {
          method: 'POST',
          headers,
          body: text,
          signal: AbortSignal.timeout(push.timeoutMs),
        });
        status = res.status;
        await res.body?.cancel().catch(() => undefined);
      } catch (err) {
        const refused = findCause(err, FetchRefusedError);
        if (refused) {
          recordPushDelivery('refused');
          throw ApplicationFailure.nonRetryable(`webhook ${origin}: ${refused.message}`, PUSH_REFUSED);
        }
        const code = errnoIn(err);
        recordPushDelivery('failed');
        throw ApplicationFailure.retryable(`webhook ${origin} could not be reached (${code ?? (err as Error).name})`, 'WebhookUnreachable');
      }
      if (status >= 200 && status < 300) {
        recordPushDelivery('delivered');
        return { status, fingerprint };
      }
      const again = status === 408 || status === 429 || status >= 500;
      recordPushDelivery(again ? 'failed' : 'refused');
      const why = `webhook ${origin} answered ${status} to notification ${event.seq} of task ${input.taskId}`;
      if (again) throw ApplicationFailure.retryable(why, 'WebhookUnavailable');
      throw ApplicationFailure.nonRetryable(why, PUSH_REFUSED);
    },
  };
}

/** The first system error code along `err`'s cause chain (ECONNREFUSED, ETIMEDOUT…). */
function errnoIn(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
