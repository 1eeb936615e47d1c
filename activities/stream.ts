/**
 * Observation by streaming: SubscribeToTask until there is news, with GetTask as the authority after
 * any end or drop (A2A streams have no replay), a watchdog for streams that go silent, and artifact
 * chunks assembled by artifactId.
 */
import { activityInfo, cancellationSignal, heartbeat } from '@temporalio/activity';
import { CancelledFailure, type ApplicationFailure } from '@temporalio/common';
import type { Logger } from 'pino';
import type { AgentClient } from '../src/a2a/agent-client';
import { ArtifactAssembly } from '../src/artifacts/assembly';
import type { RemoteSnapshot } from '../src/shared/delegation-types';
import { FailureType } from '../src/shared/failure-types';
import { isActive, statusKeyOf } from '../src/shared/remote-state';
import { Backoff } from './backoff';
import type { ActivityContext } from './context';
import { handOffTime, isNews, type ObserveInput } from './observe-input';

/**
 * The task as the agent has it now. While artifacts are being assembled from the stream, the status
 * alone is read (ListTasks without artifacts), so a half-streamed artifact is not downloaded after a
 * drop; once the task ended with every artifact whole (`lastChunk`) and some too large for history,
 * the assembled ones are used: a large artifact is downloaded once. Otherwise GetTask. A stream that
 * repeated a chunk is ambiguous (a repeated line, or an event delivered twice): then GetTask decides,
 * unless the task is too large to read whole (decision 0015).
 */
async function authority(
  ctx: ActivityContext,
  client: AgentClient,
  input: ObserveInput,
  assembly: ArtifactAssembly | undefined,
  contextId: string | undefined,
  log: Logger,
): Promise<RemoteSnapshot> {
  const large = assembly ? Object.values(assembly.cursor()).some((a) => a.bytes > ctx.inlineMaxBytes) : false;
  const repeats = assembly?.repeats ?? new Map<string, number>();
  if (assembly && contextId && large) {
    const status = await client.statusOnly(input.taskId, contextId, cancellationSignal());
    // Still running: the caller subscribes again (the snapshot it starts with resets the assembly).
    if (status && isActive(status.status.state)) return { ...(await ctx.snapshot(status)), artifacts: [] };
    // GetTask answers with the whole task, every artifact base64-encoded in one body.
    const readable = (assembly.bytesAsSent * 4) / 3 + 64 * 1024 <= ctx.agents.entryOf(input.agent.name).limits.maxResponseBytes;
    if (status && assembly.allComplete && (!repeats.size || !readable)) {
      const assembled = [...(await assembly.completed(ctx.inlineMaxBytes)).values()];
      if (repeats.size)
        log.warn(
          { repeats: Object.fromEntries(repeats) },
          'the stream repeated chunks and the task is too large to read whole; each repeated chunk was kept once',
        );
      log.info(
        { artifacts: assembled.map((a) => ({ artifactId: a.artifactId, size: a.size, sha256: a.sha256 })) },
        'artifacts assembled from the stream',
      );
      return { ...(await ctx.snapshot(status)), artifacts: assembled };
    }
  }
  const snapshot = await ctx.snapshot(await client.getTask(input.taskId, cancellationSignal()));
  if (!repeats.size) return snapshot;
  log.info({ repeats: Object.fromEntries(repeats) }, "the stream repeated chunks; the agent's own copy of the task decided");
  const artifacts = snapshot.artifacts.map((a) =>
    repeats.has(a.artifactId) ? { ...a, source: 'task' as const, repeatedChunks: repeats.get(a.artifactId) } : a,
  );
  return { ...snapshot, artifacts };
}

/** Follows SubscribeToTask until there is news, or until `callBudget` calls were made. */
export async function followStream(ctx: ActivityContext, client: AgentClient, input: ObserveInput, log: Logger): Promise<RemoteSnapshot> {
  const backoff = new Backoff(ctx.poll);
  const silenceMs = ctx.streamSilenceMs;
  const handOffAt = handOffTime(input);
  /** Aborts once the task has been followed for `sparsePoll.after`: the slot goes back (a timer that needs no clearing). */
  const handOff = handOffAt === undefined ? undefined : AbortSignal.timeout(Math.max(0, handOffAt - Date.now()));
  let calls = 0;
  const assembly = ctx.deps.store ? new ArtifactAssembly(ctx.deps.store, `${input.delegationId}/${input.taskId}`) : undefined;
  let contextId: string | undefined;
  /** Reads the task (the authority); returns the snapshot when observation is over, else undefined. */
  const readNow = async (): Promise<RemoteSnapshot | undefined> => {
    calls += 1;
    const snapshot = { ...(await authority(ctx, client, input, assembly, contextId, log)), calls };
    const news = isNews(snapshot, input.staleStatusKey);
    // Followed for long enough with no news: the workflow reads it sparsely from now on.
    if (handOff?.aborted && !news) log.debug({ state: snapshot.state }, 'still working; reading it sparsely from now on');
    else if (!news && (input.callBudget === undefined || calls < input.callBudget)) return undefined;
    assembly?.discard();
    return snapshot;
  };
  // The SDK reads at most 4 MiB per stream event, and a resubscription starts with the whole task:
  // once that is too large, the task is followed by its status alone until there is news.
  let subscribable = true;
  for (let round = 1; ; round++) {
    if (!subscribable) {
      const over = await readNow();
      if (over) return over;
      await backoff.pause({ mode: 'status', round });
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
    // left its active state meanwhile; if so the stream is dropped instead of waiting out the read timeout.
    const silent = new AbortController();
    let lastEvent = Date.now();
    let checking = false;
    const watchdog = setInterval(
      () => {
        if (checking || Date.now() - lastEvent < silenceMs) return;
        checking = true;
        calls += 1;
        client
          .getTask(input.taskId, cancellationSignal())
          .then((task) => {
            lastEvent = Date.now();
            if (!isActive(task.status.state) && statusKeyOf(task.status) !== input.staleStatusKey) {
              log.warn(
                { state: task.status.state, silentMs: silenceMs },
                'the stream went silent and the task had left its active state; dropping the stream',
              );
              silent.abort();
            }
          })
          .catch(() => {})
          .finally(() => (checking = false));
      },
      Math.max(50, Math.min(1_000, Math.floor(silenceMs / 4))),
    );
    // This subscription's own copy of the task: it stands for the agent's when the stream comes to rest on it.
    const streamed = ctx.streamedTask(input.taskId, input.inlineSoFar);
    let atRest = false;
    try {
      for await (const event of client.subscribe(
        input.taskId,
        AbortSignal.any([cancellationSignal(), silent.signal, ...(handOff ? [handOff] : [])]),
      )) {
        lastEvent = Date.now();
        streamed.apply(event);
        if ('task' in event) {
          contextId = event.task.contextId;
          await assembly?.snapshot(event.task.artifacts ?? []);
        }
        if ('artifactUpdate' in event) await assembly?.chunk(event.artifactUpdate);
        const status = 'task' in event ? event.task.status : 'statusUpdate' in event ? event.statusUpdate.status : undefined;
        if (!status) continue;
        log.info({ state: status.state, via: 'stream' }, 'remote state');
        if (!isActive(status.state) && statusKeyOf(status) !== input.staleStatusKey) {
          atRest = true;
          break;
        }
      }
    } catch (err) {
      const type = (err as ApplicationFailure).type;
      if (err instanceof CancelledFailure || cancellationSignal().aborted || type === FailureType.INVALID_AGENT_RESPONSE) throw err;
      // The hand-off's own abort is not a broken stream.
      if (!handOff?.aborted) log.warn({ err: (err as Error).message, round }, 'stream broke; reading the task');
      // The SDK's own words for an event over its 4 MiB limit; it offers no typed error for it.
      if (/exceeded the maximum allowed size/.test((err as Error).message)) {
        subscribable = false;
        log.warn({ round }, 'the task is too large to subscribe to again; following its status until there is news, then reading it whole');
      }
    } finally {
      clearInterval(beat);
      clearInterval(watchdog);
    }
    // 👉 The stream came to rest on a copy of the task nothing made doubtful: no GetTask to confirm it.
    const own = atRest && !silent.signal.aborted ? streamed.trusted : undefined;
    if (own) {
      assembly?.discard();
      return { ...(await ctx.snapshot(own)), calls };
    }
    if (atRest) log.info({ why: streamed.doubtful }, "reading the task: the stream's copy is doubtful");
    const over = await readNow();
    if (over) return over;
    log.info({ round }, 'stream ended while the task was still active; subscribing again');
    await backoff.pause({ mode: 'stream', round });
  }
}
