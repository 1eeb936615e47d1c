/**
 * Activities: thin adapters over src/a2a and src/acceptance, built with their dependencies injected.
 * Remote terminal states are returned as data; only infrastructure faults are thrown.
 */
import { activityInfo, cancellationSignal, heartbeat, sleep } from '@temporalio/activity';
import { CancelledFailure, type ApplicationFailure } from '@temporalio/common';
import type { Logger } from 'pino';
import { AgentClient, type SendTurn } from '../src/a2a/agent-client';
import { createAgentFetch } from '../src/a2a/agent-fetch';
import { chooseInterface, fetchCard, type CardSnapshot, type FetchedCard } from '../src/a2a/card';
import type { Lookup } from '../src/a2a/guarded-fetch';
import { failure } from '../src/a2a/errors';
import type { PolicyRegistry, Candidate, Decision } from '../src/acceptance/policies';
import { snapshotOf } from '../src/a2a/snapshot';
import { ArtifactAssembly } from '../src/artifacts/assembly';
import { MAX_INLINE_ARTIFACT_BYTES } from '../src/artifacts/digest';
import { downloadUrlPart } from '../src/artifacts/url-download';
import { pushToken } from '../src/push/token';
import type { ArtifactStore } from '../src/artifacts/store';
import type { BatonConfig } from '../src/config/schema';
import type { Part, Task } from '../src/shared/a2a-types';
import type { ResolvedAgent, RemoteSnapshot } from '../src/shared/delegation-types';
import { FailureType } from '../src/shared/failure-types';
import { isSettled, statusKey, statusKeyOf } from '../src/shared/remote-state';

export interface ActivityDeps {
  config: Pick<BatonConfig, 'agents'> & Partial<Pick<BatonConfig, 'artifacts' | 'push'>>;
  /** Holds artifact bytes too large for history. Default: none (large artifacts keep only their digest). */
  store?: ArtifactStore;
  policies: PolicyRegistry;
  logger: Logger;
  /** DNS lookup for the guarded fetch. Default: the system resolver (tests point names at chosen addresses). */
  lookup?: Lookup;
  /**
   * First and largest pause between two GetTask polls, in ms. The pause grows by half each poll.
   * Defaults 250 and 5000: quick for agents that finish fast, gentle on slow ones.
   */
  poll?: { initialMs: number; maxMs: number };
  /** How long a fetched card is reused before it is fetched again. Default 5 minutes. */
  cardTtlMs?: number;
  /** After this long without a stream event, GetTask checks whether the task settled. Default 30 s. */
  streamSilenceMs?: number;
}

/** Consecutive failed polls ridden out inside one observation before the activity itself fails (and is retried). */
const MAX_POLL_FAILURES = 6;

/** How a retried send went: the turn was found at the agent, not found (sent again), or could not be looked for. */
export type Reconciliation = 'found' | 'not-found' | 'unsupported';

export type SendOutcome = (
  | { kind: 'task'; snapshot: RemoteSnapshot; sentAt: string }
  | { kind: 'message'; reply: { messageId: string; parts: Part[]; contextId?: string }; sentAt: string }
) & { reconciliation?: Reconciliation; /** Calls to the agent this send made (lookups included). */ calls: number };

/**
 * Sleeps `ms`, heartbeating at least every half heartbeat timeout, so a long pause between polls is
 * never mistaken for a dead worker. Rejects when the activity is cancelled.
 */
async function pauseWithHeartbeats(ms: number, details: unknown): Promise<void> {
  const timeout = activityInfo().heartbeatTimeoutMs;
  const step = timeout ? Math.max(100, Math.floor(timeout / 2)) : ms;
  for (let left = ms; left > 0; left -= step) {
    await sleep(Math.min(step, left));
    heartbeat(details);
  }
}

export function createActivities(deps: ActivityDeps) {
  const cardTtlMs = deps.cardTtlMs ?? 5 * 60_000;
  const poll = deps.poll ?? { initialMs: 250, maxMs: 5_000 };
  const streamSilenceMs = deps.streamSilenceMs ?? 30_000;
  const cards = new Map<string, { fetched: FetchedCard; at: number }>();
  const recordOpts = { store: deps.store, inlineMaxBytes: deps.config.artifacts?.inlineMaxBytes };
  /** A snapshot for history: large artifacts go to the store. */
  const snap = (task: Parameters<typeof snapshotOf>[0]) => snapshotOf(task, recordOpts);
  const clients = new Map<string, AgentClient>();

  function entryOf(agent: string) {
    const entry = deps.config.agents[agent];
    if (!entry) {
      const known = Object.keys(deps.config.agents);
      throw failure(
        FailureType.CONFIG_INVALID,
        `unknown agent "${agent}"; known agents: ${known.length ? known.join(', ') : '(none configured)'}`,
      );
    }
    return entry;
  }

  async function cardOf(agent: string, fresh = false): Promise<FetchedCard> {
    const cached = cards.get(agent);
    if (!fresh && cached && Date.now() - cached.at < cardTtlMs) return cached.fetched;
    const fetched = await fetchCard(agent, entryOf(agent), { lookup: deps.lookup });
    cards.set(agent, { fetched, at: Date.now() });
    return fetched;
  }

  /** The client for the interface recorded at resolve time, on the very card that was recorded. */
  /** auto: a stream when the card offers one, else push when the card offers it and push is set up, else polling. */
  function observeMode(
    agent: string,
    wanted: 'auto' | 'stream' | 'poll' | 'push',
    caps: { streaming?: boolean; pushNotifications?: boolean },
  ): ResolvedAgent['observe'] {
    if (wanted === 'push') {
      if (!deps.config.push)
        throw failure(
          FailureType.CONFIG_INVALID,
          `agents.${agent}.observe is push, but the config has no push section (push.url, push.secretFromEnv)`,
        );
      if (caps.pushNotifications !== true)
        throw failure(
          FailureType.CONFIG_INVALID,
          `agents.${agent}.observe is push, but the agent's card does not offer push notifications`,
        );
      return 'push';
    }
    if (wanted !== 'auto') return wanted;
    if (caps.streaming === true) return 'stream';
    return caps.pushNotifications === true && deps.config.push ? 'push' : 'poll';
  }

  async function clientFor(resolved: ResolvedAgent): Promise<AgentClient> {
    const key = `${resolved.name}|${resolved.cardSha256}|${resolved.interface.url}`;
    const existing = clients.get(key);
    if (existing) return existing;
    let fetched = await cardOf(resolved.name);
    if (fetched.sha256 !== resolved.cardSha256) fetched = await cardOf(resolved.name, true);
    if (fetched.sha256 !== resolved.cardSha256) {
      throw failure(
        FailureType.TRUST_REFUSED,
        `agent ${resolved.name}: card changed since this delegation resolved it (sha256 ${resolved.cardSha256.slice(0, 12)}… → ${fetched.sha256.slice(0, 12)}…)`,
      );
    }
    const client = await AgentClient.create(
      resolved.name,
      fetched.card,
      resolved.interface,
      createAgentFetch(resolved.name, entryOf(resolved.name), { lookup: deps.lookup }),
    );
    clients.set(key, client);
    return client;
  }

  /**
   * After a send, reads the task with short, growing pauses for up to `withinMs`: an agent that
   * finishes at once is then done in this one activity, with no observing activity after it.
   * Returns the last snapshot read, settled or not, and the calls made.
   */
  async function settleBriefly(
    client: AgentClient,
    taskId: string,
    withinMs: number,
    maxCalls: number,
    log: Logger,
  ): Promise<{ task?: Task; calls: number }> {
    const until = Date.now() + withinMs;
    let pause = 5;
    let calls = 0;
    let task: Task | undefined;
    while (calls < maxCalls && Date.now() + pause <= until && !cancellationSignal().aborted) {
      await sleep(pause);
      calls += 1;
      let read: Task;
      try {
        read = await client.getTask(taskId, cancellationSignal());
      } catch (err) {
        // Whatever went wrong is the observing activity's to meet, with the task id in history by then.
        log.info({ remoteTaskId: taskId, err: (err as Error).message }, 'read after send failed; observing instead');
        break;
      }
      if (read.id !== taskId) break;
      task = read;
      if (isSettled(task.status.state)) {
        log.info({ remoteTaskId: taskId, state: task.status.state }, 'remote state');
        break;
      }
      pause *= 4;
    }
    return { task, calls };
  }

  /**
   * Sends one turn. `settle`: the delegation lets this send read the task for a moment after it (see
   * `settleWithinMs`), within a budget of calls (its remaining contract budget); default: not at all.
   */
  async function sendTurn(input: {
    delegationId: string;
    agent: ResolvedAgent;
    turn: SendTurn;
    settle?: { callBudget: number };
  }): Promise<SendOutcome> {
    const log = deps.logger.child({ delegationId: input.delegationId, agent: input.agent.name, messageId: input.turn.messageId });
    const client = await clientFor(input.agent);
    const sentAt = new Date().toISOString();
    // 👉 SendMessage is not idempotent. A retry may follow a response that was lost after the agent
    // acted on it (a crash, a timeout): look for the turn first, and send again only if it is not there.
    const info = activityInfo();
    let reconciliation: SendOutcome['reconciliation'];
    let calls = 1;
    const sent = info.heartbeatDetails as { sent?: string; taskId?: string } | undefined;
    if (info.attempt > 1 && sent?.sent === input.turn.messageId && sent.taskId) {
      // The previous attempt's send got its answer (and heartbeated the task) before the attempt died.
      const task = await client.getTask(sent.taskId, cancellationSignal());
      log.warn(
        { remoteTaskId: task.id, attempt: info.attempt },
        'retried send: the previous attempt had sent this turn; not sending it again',
      );
      return { kind: 'task', snapshot: await snap(task), sentAt, reconciliation: 'found', calls };
    }
    if (info.attempt > 1) {
      calls += 1;
      const since = new Date(info.scheduledTimestampMs - 60_000).toISOString();
      const found = await client.findTurn(input.turn.messageId, { taskId: input.turn.taskId, since, signal: cancellationSignal() });
      if (found && found !== 'unsupported') {
        log.warn({ remoteTaskId: found.id, attempt: info.attempt }, 'retried send: the agent already had this turn; not sending it again');
        return { kind: 'task', snapshot: await snap(found), sentAt, reconciliation: 'found', calls: calls - 1 };
      }
      reconciliation = found === 'unsupported' ? 'unsupported' : 'not-found';
      log.warn({ attempt: info.attempt, reconciliation }, 'retried send: sending the turn again');
    }
    const result = await client.send(input.turn, cancellationSignal());
    if (result.kind === 'message') {
      log.info({ replyMessageId: result.message.messageId }, 'agent replied with a direct Message');
      return {
        kind: 'message',
        sentAt,
        reply: {
          messageId: result.message.messageId,
          parts: await boundedReply(result.message.parts),
          ...(result.message.contextId ? { contextId: result.message.contextId } : {}),
        },
        ...(reconciliation ? { reconciliation } : {}),
        calls,
      };
    }
    log.info(
      { remoteTaskId: result.task.id, contextId: result.task.contextId, state: result.task.status.state },
      input.turn.taskId ? 'turn sent' : 'remote task created',
    );
    let task = result.task;
    const entry = entryOf(input.agent.name);
    // URL downloads belong to the observing activity, whose timeout is made for them; a push agent
    // is read when it pushes, not polled.
    const withinMs = input.settle && !entry.downloads && input.agent.observe !== 'push' ? entry.readAfterSendMs : 0;
    if (withinMs > 0 && !isSettled(task.status.state)) {
      // A retry of this attempt must not send again: the heartbeat names the task it created.
      heartbeat({ sent: input.turn.messageId, taskId: task.id });
      const settled = await settleBriefly(client, task.id, withinMs, input.settle ? input.settle.callBudget - calls : 0, log);
      calls += settled.calls;
      task = settled.task ?? task;
    }
    // An agent may answer the send with a task that already settled.
    const snapshot = await withDownloads(input.agent.name, await snap(task), log);
    return { kind: 'task', snapshot, sentAt, calls, ...(reconciliation ? { reconciliation } : {}) };
  }

  type ObserveInput = { delegationId: string; agent: ResolvedAgent; taskId: string; staleStatusKey?: string; callBudget?: number };

  /** News: a settled state that is not the question we already answered. */
  const isNews = (snapshot: RemoteSnapshot, stale?: string): boolean => isSettled(snapshot.state) && statusKey(snapshot) !== stale;

  /** GetTask with growing pauses until the task settles. Polls and heartbeats add nothing to history. */
  async function poll_(client: AgentClient, input: ObserveInput, log: Logger): Promise<RemoteSnapshot> {
    let pause = poll.initialMs;
    let calls = 0;
    let lastState = (activityInfo().heartbeatDetails as { state?: string } | undefined)?.state;
    let failures = 0;
    for (;;) {
      let task: Awaited<ReturnType<AgentClient['getTask']>>;
      try {
        task = await client.getTask(input.taskId, cancellationSignal());
        failures = 0;
      } catch (err) {
        // A passing fault (5xx, 429, a dropped connection) during a long wait is ridden out here, at the
        // poll's own pace: failing the activity would spend one of its few attempts on each blip.
        calls += 1;
        const f = err as ApplicationFailure;
        if (f.type !== FailureType.RETRY_LATER || cancellationSignal().aborted || ++failures >= MAX_POLL_FAILURES) throw err;
        log.warn({ err: f.message, failures }, 'poll failed; polling on');
        await pauseWithHeartbeats(Math.max(pause, Number(f.nextRetryDelay ?? 0) || 0), { state: lastState });
        pause = Math.min(Math.round(pause * 1.5), poll.maxMs);
        continue;
      }
      calls += 1;
      if (task.id !== input.taskId) {
        throw failure(
          FailureType.INVALID_AGENT_RESPONSE,
          `agent ${input.agent.name}: GetTask ${input.taskId} answered with task ${task.id}`,
        );
      }
      if (task.status.state !== lastState) {
        log.info({ state: task.status.state }, 'remote state');
        lastState = task.status.state;
      }
      heartbeat({ state: task.status.state });
      const snapshot = { ...(await snap(task)), calls };
      if (isNews(snapshot, input.staleStatusKey)) return snapshot;
      if (input.callBudget !== undefined && calls >= input.callBudget) return { ...snapshot, budgetExhausted: true };
      await pauseWithHeartbeats(pause, { state: task.status.state });
      pause = Math.min(Math.round(pause * 1.5), poll.maxMs);
    }
  }

  /**
   * A direct Message reply as history may hold it: inline when small, else stored, its parts replaced
   * by one data part naming the stored bytes (an acceptance policy can fetch them by reference).
   */
  async function boundedReply(parts: Part[]): Promise<Part[]> {
    const inlineMax = deps.config.artifacts?.inlineMaxBytes ?? MAX_INLINE_ARTIFACT_BYTES;
    const bytes = Buffer.from(JSON.stringify(parts), 'utf8');
    if (bytes.length <= inlineMax) return parts;
    if (!deps.store)
      return [{ text: `(the agent's reply of ${bytes.length} bytes was not kept: over ${inlineMax} and no artifact store)` }];
    const stored = await deps.store.put(bytes);
    return [
      {
        data: { storedReply: { ref: stored.ref, sha256: stored.sha256, size: stored.size, mediaType: 'application/json' } },
        mediaType: 'application/json',
      },
    ];
  }

  /** Downloads the URL parts of a settled snapshot's artifacts, when the agent's entry has a download policy. */
  async function withDownloads(agentName: string, snapshot: RemoteSnapshot, log: Logger): Promise<RemoteSnapshot> {
    const policy = entryOf(agentName).downloads;
    if (!policy || !deps.store || !isSettled(snapshot.state)) return snapshot;
    for (const artifact of snapshot.artifacts) {
      const urls = (artifact.parts ?? []).flatMap((p) =>
        p.url !== undefined ? [{ url: p.url, ...(p.mediaType ? { mediaType: p.mediaType } : {}) }] : [],
      );
      if (!urls.length) continue;
      artifact.downloads = [];
      for (const part of urls) {
        const got = await downloadUrlPart(part, policy, deps.store, { lookup: deps.lookup, signal: cancellationSignal() });
        log.info(
          {
            artifactId: artifact.artifactId,
            url: part.url,
            ok: got.ok,
            ...(got.ok ? { sha256: got.sha256, size: got.size } : { reason: got.reason, detail: got.detail }),
          },
          got.ok ? 'URL part downloaded' : 'URL part refused',
        );
        artifact.downloads.push(got);
      }
    }
    return snapshot;
  }

  /**
   * The task as the agent has it now. While artifacts are being assembled from the stream, the status
   * alone is read (ListTasks without artifacts), so a half-streamed artifact is not downloaded after a
   * drop; once the task settled with every artifact whole (`lastChunk`) and some too large for history,
   * the assembled ones are used: a large artifact is downloaded once. Otherwise GetTask.
   */
  async function authority(
    client: AgentClient,
    input: ObserveInput,
    assembly: ArtifactAssembly | undefined,
    contextId: string | undefined,
    log: Logger,
  ): Promise<RemoteSnapshot> {
    const inlineMax = deps.config.artifacts?.inlineMaxBytes ?? MAX_INLINE_ARTIFACT_BYTES;
    const large = assembly ? Object.values(assembly.cursor()).some((a) => a.bytes > inlineMax) : false;
    if (assembly && contextId && large) {
      const status = await client.statusOnly(input.taskId, contextId, cancellationSignal());
      // Still running: the caller subscribes again (the snapshot it starts with resets the assembly).
      if (status && !isSettled(status.status.state)) return { ...(await snap(status)), artifacts: [] };
      if (status && assembly.allComplete) {
        const assembled = [...(await assembly.completed(inlineMax)).values()];
        log.info(
          { artifacts: assembled.map((a) => ({ artifactId: a.artifactId, size: a.size, sha256: a.sha256 })) },
          'artifacts assembled from the stream',
        );
        return { ...(await snap(status)), artifacts: assembled };
      }
    }
    return snap(await client.getTask(input.taskId, cancellationSignal()));
  }

  /**
   * Follows SubscribeToTask until the task settles. After any end or drop of the stream, GetTask is
   * the authority (A2A streams have no replay); if the task still runs, subscribe again.
   */
  async function followStream(client: AgentClient, input: ObserveInput, log: Logger): Promise<RemoteSnapshot> {
    let pause = poll.initialMs;
    let calls = 0;
    const assembly = deps.store ? new ArtifactAssembly(deps.store, `${input.delegationId}/${input.taskId}`) : undefined;
    let contextId: string | undefined;
    // The SDK reads at most 4 MiB per stream event, and a resubscription starts with the whole task:
    // once that is too large, the task is followed by its status alone until it settles.
    let subscribable = true;
    for (let round = 1; ; round++) {
      if (!subscribable) {
        const snapshot = { ...(await authority(client, input, assembly, contextId, log)), calls: (calls += 1) };
        if (isNews(snapshot, input.staleStatusKey) || (input.callBudget !== undefined && calls >= input.callBudget)) {
          assembly?.discard();
          return isNews(snapshot, input.staleStatusKey) ? snapshot : { ...snapshot, budgetExhausted: true };
        }
        await pauseWithHeartbeats(pause, { mode: 'status', round });
        pause = Math.min(Math.round(pause * 1.5), poll.maxMs);
        continue;
      }
      calls += 1;
      const timeout = activityInfo().heartbeatTimeoutMs;
      // 👉 A quiet stream sends nothing: heartbeat on a timer, or the worker looks dead.
      const beat = setInterval(
        () => heartbeat({ mode: 'stream', round, artifacts: assembly?.cursor() }),
        Math.max(100, Math.floor((timeout ?? 10_000) / 2)),
      );
      // A stream may stall (headers, then nothing): after a silence, GetTask says whether the task
      // settled meanwhile; if so the stream is dropped instead of waiting out the read timeout.
      const silent = new AbortController();
      let lastEvent = Date.now();
      let checking = false;
      const watchdog = setInterval(
        () => {
          if (checking || Date.now() - lastEvent < streamSilenceMs) return;
          checking = true;
          calls += 1;
          client
            .getTask(input.taskId, cancellationSignal())
            .then((task) => {
              lastEvent = Date.now();
              const key = statusKeyOf(task.status);
              if (isSettled(task.status.state) && key !== input.staleStatusKey) {
                log.warn(
                  { state: task.status.state, silentMs: streamSilenceMs },
                  'the stream went silent and the task had settled; dropping the stream',
                );
                silent.abort();
              }
            })
            .catch(() => {})
            .finally(() => (checking = false));
        },
        Math.max(50, Math.min(1_000, Math.floor(streamSilenceMs / 4))),
      );
      try {
        for await (const event of client.subscribe(input.taskId, AbortSignal.any([cancellationSignal(), silent.signal]))) {
          lastEvent = Date.now();
          if ('task' in event) {
            contextId = event.task.contextId;
            await assembly?.snapshot(event.task.artifacts ?? []);
          }
          if ('artifactUpdate' in event) await assembly?.chunk(event.artifactUpdate);
          const status = 'task' in event ? event.task.status : 'statusUpdate' in event ? event.statusUpdate.status : undefined;
          if (status) log.info({ state: status.state, via: 'stream' }, 'remote state');
          const key = status && statusKeyOf(status);
          if (status && isSettled(status.state) && key !== input.staleStatusKey) break;
        }
      } catch (err) {
        if (
          err instanceof CancelledFailure ||
          cancellationSignal().aborted ||
          (err as ApplicationFailure).type === FailureType.INVALID_AGENT_RESPONSE
        )
          throw err;
        log.warn({ err: (err as Error).message, round }, 'stream broke; reading the task');
        if (/exceeded the maximum allowed size/.test((err as Error).message)) {
          subscribable = false;
          log.warn({ round }, 'the task is too large to subscribe to again; following its status until it settles, then reading it whole');
        }
      } finally {
        clearInterval(beat);
        clearInterval(watchdog);
      }
      const snapshot = { ...(await authority(client, input, assembly, contextId, log)), calls: (calls += 1) };
      if (isNews(snapshot, input.staleStatusKey)) {
        if (assembly?.duplicates) log.info({ duplicates: assembly.duplicates }, 'dropped duplicated artifact chunks');
        assembly?.discard();
        return snapshot;
      }
      if (input.callBudget !== undefined && calls >= input.callBudget) return { ...snapshot, budgetExhausted: true };
      log.info({ state: snapshot.state, round }, 'stream ended before the task settled; subscribing again');
      await pauseWithHeartbeats(pause, { mode: 'stream', round });
      pause = Math.min(Math.round(pause * 1.5), poll.maxMs);
    }
  }

  return {
    /** Fetches and checks the card; the snapshot goes into history (this result) for audit. */
    async resolveAgent(input: { delegationId: string; agent: string }): Promise<{ agent: ResolvedAgent; card: CardSnapshot }> {
      const entry = entryOf(input.agent);
      const fetched = await cardOf(input.agent, true);
      const iface = chooseInterface(input.agent, fetched, entry);
      deps.logger.info(
        { delegationId: input.delegationId, agent: input.agent, cardSha256: fetched.sha256, interface: iface },
        'agent resolved',
      );
      const agent: ResolvedAgent = {
        name: input.agent,
        cardUrl: fetched.url,
        cardSha256: fetched.sha256,
        cardName: fetched.card.name,
        interface: iface,
        defaultPolicy: entry.acceptance,
        reconcile: iface.protocolVersion.startsWith('0.') ? 'unavailable' : 'list-tasks',
        contract: entry.contract,
        observe: observeMode(input.agent, entry.observe, fetched.card.capabilities ?? {}),
        ...(deps.config.push ? { backstopPoll: deps.config.push.backstopPoll } : {}),
        capabilities: {
          streaming: fetched.card.capabilities?.streaming === true,
          pushNotifications: fetched.card.capabilities?.pushNotifications === true,
        },
      };
      return { agent, card: fetched.snapshot };
    },

    sendTurn,

    /**
     * Sends the turn that answers AUTH_REQUIRED: the credential is read here, from the worker's
     * environment, so only its name is in history.
     */
    async sendAuthTurn(input: {
      delegationId: string;
      agent: ResolvedAgent;
      turn: Omit<SendTurn, 'parts'>;
      secretEnv: string;
    }): Promise<SendOutcome> {
      const value = process.env[input.secretEnv];
      if (!value) throw failure(FailureType.CONFIG_INVALID, `authorize names ${input.secretEnv}, which is not set on the worker`);
      return sendTurn({
        delegationId: input.delegationId,
        agent: input.agent,
        turn: { ...input.turn, parts: [{ data: { credential: value }, mediaType: 'application/json' }] },
      });
    },

    /**
     * Requests CancelTask. When the agent says the task cannot be cancelled (it settled first), reads
     * the task: the caller records what really happened.
     */
    async cancelRemoteTask(input: { delegationId: string; agent: ResolvedAgent; taskId: string }): Promise<RemoteSnapshot> {
      const log = deps.logger.child({ delegationId: input.delegationId, agent: input.agent.name, remoteTaskId: input.taskId });
      const client = await clientFor(input.agent);
      try {
        const task = await client.cancel(input.taskId, cancellationSignal());
        log.info({ state: task.status.state }, 'remote cancel requested');
        return { ...(await snap(task)), calls: 1 };
      } catch (err) {
        const reason = ((err as { details?: unknown[] }).details?.[0] as { reason?: string } | undefined)?.reason;
        if (reason !== 'TASK_NOT_CANCELABLE') throw err;
        const task = await client.getTask(input.taskId, cancellationSignal());
        log.info({ state: task.status.state }, 'remote task could not be cancelled; recorded its real state');
        return { ...(await snap(task)), calls: 2 };
      }
    },

    /**
     * Polls GetTask with growing pauses until the task settles (terminal or interrupted), heartbeating
     * each round so a dead worker is noticed and a cancel gets through. Polls add nothing to history.
     */
    /** Follows the task until it settles, or until `callBudget` calls were made (then `budgetExhausted`). */
    async awaitRemoteTask(input: { delegationId: string } & ObserveInput): Promise<RemoteSnapshot> {
      const log = deps.logger.child({ delegationId: input.delegationId, agent: input.agent.name, remoteTaskId: input.taskId });
      const client = await clientFor(input.agent);
      const snapshot = await (input.agent.observe === 'stream' ? followStream(client, input, log) : poll_(client, input, log));
      return withDownloads(input.agent.name, snapshot, log);
    },

    async evaluateAcceptance(input: { delegationId: string; policy: string; candidate: Candidate }): Promise<Decision> {
      const policy = deps.policies.get(input.policy);
      if (!policy) {
        throw failure(
          FailureType.CONFIG_INVALID,
          `unknown acceptance policy "${input.policy}"; known: ${deps.policies.names().join(', ')}`,
        );
      }
      const decision = await policy(input.candidate);
      deps.logger.info(
        { delegationId: input.delegationId, policy: input.policy, accepted: decision.accepted, reasons: decision.reasons },
        'acceptance decided',
      );
      return decision;
    },

    /**
     * Asks the agent to push the task's events to the webhook, with a token only this delegation and
     * task can use. The token is computed here from the worker's secret and never enters history.
     */
    async registerPush(input: { delegationId: string; agent: ResolvedAgent; taskId: string }): Promise<{ url: string; calls: number }> {
      const push = deps.config.push;
      if (!push) throw failure(FailureType.CONFIG_INVALID, 'push is not configured on this worker (config push.url, push.secretFromEnv)');
      const secret = process.env[push.secretFromEnv];
      if (!secret) throw failure(FailureType.CONFIG_INVALID, `push: environment variable ${push.secretFromEnv} is not set on this worker`);
      const url = `${push.url.replace(/\/$/, '')}/push/${encodeURIComponent(input.delegationId)}`;
      const client = await clientFor(input.agent);
      await client.createPushConfig(input.taskId, url, pushToken(secret, input.delegationId, input.taskId), cancellationSignal());
      deps.logger.info({ delegationId: input.delegationId, agent: input.agent.name, remoteTaskId: input.taskId, url }, 'push registered');
      return { url, calls: 1 };
    },

    /** One GetTask: what a push (a hint) or the backstop timer asks for. */
    async readTask(input: { delegationId: string; agent: ResolvedAgent; taskId: string }): Promise<RemoteSnapshot> {
      const log = deps.logger.child({ delegationId: input.delegationId, agent: input.agent.name, remoteTaskId: input.taskId });
      const client = await clientFor(input.agent);
      const task = await client.getTask(input.taskId, cancellationSignal());
      if (task.id !== input.taskId)
        throw failure(
          FailureType.INVALID_AGENT_RESPONSE,
          `agent ${input.agent.name}: GetTask ${input.taskId} answered with task ${task.id}`,
        );
      log.info({ state: task.status.state, via: 'push' }, 'remote state');
      return withDownloads(input.agent.name, { ...(await snap(task)), calls: 1 }, log);
    },

    /** Which of `agents` the registry lacks, and which of `policies` are unknown (graphs check before they start). */
    async checkNames(input: {
      agents: string[];
      policies: string[];
    }): Promise<{ unknownAgents: string[]; unknownPolicies: string[]; knownAgents: string[] }> {
      const knownAgents = Object.keys(deps.config.agents);
      return {
        unknownAgents: input.agents.filter((a) => !(a in deps.config.agents)),
        unknownPolicies: input.policies.filter((p) => !deps.policies.has(p)),
        knownAgents,
      };
    },
  };
}

export type BatonActivities = ReturnType<typeof createActivities>;
