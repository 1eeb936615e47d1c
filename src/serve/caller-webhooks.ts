/**
 * Caller webhooks: the push notification configs of served tasks (A2A Create/Get/List/Delete-
 * TaskPushNotificationConfig; "caller webhook" in the glossary, never "push"). Each task's
 * webhooks are kept by a workflow of their own (`<task id>.push`, taskPushWorkflow), started by the
 * first config and ended after the task's end has been delivered. A config's URL is checked here,
 * and its token and credentials sealed with `serve.push.keys` before they reach history.
 */
import { createHash } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { refusedResolution, type Lookup } from '../a2a/guarded-fetch';
import type { TaskPushNotificationConfig } from '@a2a-js/sdk';
import { PushNotificationNotSupportedError, RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { msToNumber } from '@temporalio/common';
import { refusalFor } from '../a2a/address-policy';
import type { BatonClient } from '../client/baton-client';
import { sendUpdate } from '../client/send-update';
import type { EncryptionCodec } from '../codec/encryption-codec';
import type { ServePushConfig } from '../config/schema';
import { asBatonError } from '../errors/as-baton-error';
import type { Caller } from '../shared/delegation-types';
import { SA_SERVICE, SA_TENANT } from '../shared/search-attributes';
import type { PushTarget, SealedSecret, TaskPushCarry, TaskPushInput, TaskPushView } from '../shared/task-push-types';
import { deletePushTargetUpdate, pushStateQuery, setPushTargetUpdate } from '../../workflows/messages';
import type { TaskPushWorkflow } from '../../workflows/messages';

/** The workflow that keeps task `taskId`'s webhooks. */
export const pushWorkflowId = (taskId: string): string => `${taskId}.push`;

const SCHEME = /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]{0,31}$/;
const CONFIG_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export interface TaskPushConfigsOptions {
  /** The service's name (`serve.services.<name>`). */
  service: string;
  runner: TaskPushInput['runner'];
  baton: BatonClient;
  push: ServePushConfig;
  /** Seals tokens and credentials (`serve.push.keys`); without it, configs carrying them are refused. */
  sealer?: EncryptionCodec;
  /** Resolves a webhook's host name when the config is created. Default: the system's resolver (tests give their own). */
  lookup?: Lookup;
}

export class CallerWebhooks {
  constructor(private readonly o: TaskPushConfigsOptions) {}

  /**
   * Keeps `config` for task `taskId` (the caller's, checked by the caller of this method).
   * `shown`: what the caller sees of the task now (its fingerprint), read only when the push
   * workflow has closed, so the configs it kept go on without being sent what they had.
   */
  async set(
    caller: Caller,
    taskId: string,
    config: TaskPushNotificationConfig,
    shown?: () => Promise<string>,
  ): Promise<TaskPushNotificationConfig> {
    return this.keep(caller, taskId, await this.targetOf(config), shown);
  }

  /** Keeps `target` (from `targetOf`) for task `taskId`. */
  async keep(caller: Caller, taskId: string, target: PushTarget, shown?: () => Promise<string>): Promise<TaskPushNotificationConfig> {
    // The task's webhooks are one workflow: a config joins it while it runs. Asked first to start only
    // where none ever ran (the common case: no describe); one that ended is taken over by a new run.
    const kept = await this.keepIn(caller, taskId, target, 'REJECT_DUPLICATE').catch(async (err: unknown) => {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      const carried = shown ? await this.carriedFromClosed(taskId, target.id, shown) : undefined;
      return this.keepIn(caller, taskId, target, 'ALLOW_DUPLICATE', carried);
    });
    return wireConfig(taskId, kept);
  }

  private keepIn(
    caller: Caller,
    taskId: string,
    target: PushTarget,
    reuse: 'REJECT_DUPLICATE' | 'ALLOW_DUPLICATE',
    carried?: TaskPushCarry,
  ): Promise<TaskPushView['configs'][number]> {
    const start = new WithStartWorkflowOperation<TaskPushWorkflow>('taskPushWorkflow', {
      ...this.startOptions(caller, taskId),
      args: carried ? [this.inputFor(caller, taskId), carried] : [this.inputFor(caller, taskId)],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: reuse,
    });
    return sendUpdate(
      `push config ${target.id}`,
      () => this.o.baton.client.workflow.executeUpdateWithStart(setPushTargetUpdate, { args: [target], startWorkflowOperation: start }),
      () => Promise.resolve(),
    );
  }

  /**
   * The configs a closed push workflow kept (but `replaced`), for the run a new config starts: each
   * as having been sent the task as it is now, so only what changes from here reaches them. A
   * describe first: it costs the server alone, where the view is a Query the worker answers.
   */
  private async carriedFromClosed(taskId: string, replaced: string, shown: () => Promise<string>): Promise<TaskPushCarry | undefined> {
    const description = await this.o.baton.client.workflow
      .getHandle(pushWorkflowId(taskId))
      .describe()
      .catch((err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      });
    if (!description || description.status.name === 'RUNNING') return undefined;
    const view = await this.view(taskId);
    const targets = view ? keptTargets(view, replaced) : [];
    if (!view || !targets.length) return undefined;
    const fingerprint = await shown();
    return {
      targets,
      queues: {},
      lastSent: Object.fromEntries(targets.map((t) => [t.id, fingerprint])),
      seq: 0,
      delivered: view.delivered,
      undelivered: view.undelivered,
    };
  }

  private inputFor(caller: Caller, taskId: string): TaskPushInput {
    return {
      taskId,
      service: this.o.service,
      runner: this.o.runner,
      caller,
      delivery: {
        attempts: this.o.push.attempts,
        initialIntervalMs: msToNumber(this.o.push.retryInitial),
        maxIntervalMs: msToNumber(this.o.push.retryMax),
      },
    };
  }

  private startOptions(caller: Caller, taskId: string) {
    return {
      workflowId: pushWorkflowId(taskId),
      taskQueue: this.o.baton.taskQueue,
      typedSearchAttributes: [
        { key: SA_TENANT, value: caller.tenant },
        { key: SA_SERVICE, value: this.o.service },
      ],
    };
  }

  /** The task's configs (none when it never had one). */
  async list(taskId: string): Promise<TaskPushNotificationConfig[]> {
    const view = await this.view(taskId);
    return (view?.configs ?? []).map((c) => wireConfig(taskId, c));
  }

  async get(taskId: string, id: string): Promise<TaskPushNotificationConfig> {
    const found = (await this.view(taskId))?.configs.find((c) => c.id === id);
    if (!found) throw new TaskNotFoundError(`task ${taskId} has no push config ${id}`);
    return wireConfig(taskId, found);
  }

  /**
   * Forgets config `id` for good (and what it was still owed, such as the end of a task for a webhook
   * that is down). Deleting a config that is not there succeeds: a delete is idempotent (A2A 1.0 §9.8).
   */
  async delete(caller: Caller, taskId: string, id: string): Promise<void> {
    const view = await this.view(taskId);
    if (!view?.configs.some((c) => c.id === id)) return;
    const handle = this.o.baton.client.workflow.getHandle(pushWorkflowId(taskId));
    try {
      await handle.executeUpdate(deletePushTargetUpdate, { args: [id] });
      return;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError || asBatonError(err)?.kind === 'NotFound')) throw err;
    }
    // The push workflow has closed (the task ended, everything delivered) and shows its configs as it
    // ended: a run that starts ended keeps the others, for reading, and closes at once.
    const carry: TaskPushCarry = {
      targets: keptTargets(view, id),
      queues: {},
      seq: 0,
      delivered: view.delivered,
      undelivered: view.undelivered.filter((u) => u.configId !== id),
      ended: true,
    };
    await this.o.baton.client.workflow
      .start<TaskPushWorkflow>('taskPushWorkflow', {
        ...this.startOptions(caller, taskId),
        args: [this.inputFor(caller, taskId), carry],
        workflowIdConflictPolicy: 'FAIL',
      })
      .catch((err: unknown) => {
        // Another delete (or a new config) got there first: its run decides.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      });
  }

  /** What the task's push workflow keeps, or undefined when it has none. */
  async view(taskId: string): Promise<TaskPushView | undefined> {
    try {
      return await this.o.baton.client.workflow.getHandle(pushWorkflowId(taskId)).query(pushStateQuery);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
  }

  /** The config as history keeps it: URL checked, id given or derived from the URL, secrets sealed. */
  async targetOf(config: TaskPushNotificationConfig): Promise<PushTarget> {
    const url = await this.checkedUrl(config.url);
    const id = config.id || `push-${createHash('sha256').update(url).digest('hex').slice(0, 16)}`;
    if (!CONFIG_ID.test(id)) throw new RequestMalformedError('a push config id uses letters, digits and . _ : - (at most 128)');
    const token = config.token || undefined;
    if (token && token.length > 1024) throw new RequestMalformedError('a push config token has at most 1024 characters');
    const auth = config.authentication;
    if (auth && !SCHEME.test(auth.scheme))
      throw new RequestMalformedError('a push config authentication scheme is an HTTP scheme name such as Bearer');
    if (auth?.credentials && auth.credentials.length > 4096)
      throw new RequestMalformedError('push config credentials have at most 4096 characters');
    return {
      id,
      url,
      ...(auth
        ? { authentication: { scheme: auth.scheme, ...(auth.credentials ? { credentials: this.seal(auth.credentials) } : {}) } }
        : {}),
      ...(token ? { token: this.seal(token) } : {}),
    };
  }

  private seal(secret: string): SealedSecret {
    const sealer = this.o.sealer;
    if (!sealer)
      throw new PushNotificationNotSupportedError(
        'this server keeps no webhook tokens or credentials (its serve.push.keys is not set): register the webhook without them, or ask its operator to set the keys',
      );
    return { keyId: sealer.current, sealed: sealer.seal(Buffer.from(secret, 'utf8')).toString('base64') };
  }

  /**
   * The URL if Baton may post to it: http(s) as allowed, and no address it may not reach, whether
   * written as an address (in any of its spellings) or as a name, which is resolved now and again on
   * every delivery (the worker's guarded fetch).
   */
  private async checkedUrl(raw: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new RequestMalformedError('a push config needs an absolute webhook url');
    }
    if (raw.length > 2048) throw new RequestMalformedError('a push config url has at most 2048 characters');
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.o.push.allowHttp))
      throw new RequestMalformedError(
        `webhook ${url.origin}: this server posts to https webhooks only${this.o.push.allowHttp ? ' and http ones' : ''}`,
      );
    if (url.username || url.password) throw new RequestMalformedError('a webhook url carries no user or password: use authentication');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const [allow, owner] = [this.o.push.allowPrivateNetwork, "this server's serve.push"];
    // An address as the guarded fetch judges one; a name by every address it resolves to, as it does.
    const why = isIP(host)
      ? refusalFor(host, allow, owner)
      : refusedResolution(host, await this.resolve(host, url.origin), allow, owner)?.message;
    if (why) throw new RequestMalformedError(`webhook ${url.origin}: ${why}`);
    return url.toString();
  }

  /** The addresses name `host` stands for: loopback for localhost however spelled; else what it resolves to. */
  private async resolve(host: string, origin: string): Promise<string[]> {
    const name = host.toLowerCase().replace(/\.+$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) return ['127.0.0.1'];
    const lookup = this.o.lookup ?? dnsLookup;
    const found = await new Promise<LookupAddress[]>((resolve) =>
      lookup(name, { all: true }, (err, addresses) => resolve(err ? [] : (addresses as LookupAddress[]))),
    );
    if (!found.length)
      throw new RequestMalformedError(`webhook ${origin}: ${name} does not resolve here; give a name this server can reach`);
    return found.map((a) => a.address);
  }
}

/**
 * The configs a push workflow's view shows, but `except`, as targets for a run that carries them:
 * their sealed token and credentials are not in the view, and a run that carries them after the task
 * ended owes them nothing to post.
 */
function keptTargets(view: TaskPushView, except: string): PushTarget[] {
  return view.configs
    .filter((c) => c.id !== except)
    .map((c) => ({ id: c.id, url: c.url, ...(c.scheme ? { authentication: { scheme: c.scheme } } : {}) }));
}

/** A kept config as the caller reads it: its token and credentials are never given back. */
function wireConfig(taskId: string, c: TaskPushView['configs'][number]): TaskPushNotificationConfig {
  return {
    tenant: '',
    id: c.id,
    taskId,
    url: c.url,
    token: '',
    authentication: c.scheme ? { scheme: c.scheme, credentials: '' } : undefined,
  };
}
