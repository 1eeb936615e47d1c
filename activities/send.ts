/**
 * Sending turns: SendMessage with a deterministic messageId, reconciliation when a retried attempt may
 * follow a lost response, and the read-after-send window in which an agent that finishes at once is done.
 */
import { activityInfo, cancellationSignal, heartbeat, sleep } from '@temporalio/activity';
import type { Logger } from 'pino';
import type { AgentClient, SendTurn } from '../src/a2a/agent-client';
import { failure } from '../src/a2a/errors';
import type { SendResult } from '../src/a2a/wire';
import type { StreamedTask } from '../src/a2a/streamed-task';
import type { Part, Task } from '../src/shared/a2a-types';
import type { Contract, ResolvedAgent } from '../src/shared/delegation-types';
import { FailureType } from '../src/shared/failure-types';
import { sendWithDataUse } from './turn-data-use';
import type { InheritedLabel } from '../src/shared/graph-data-use';
import { isActive, isInterrupted } from '../src/shared/remote-state';
import type { SendOutcome } from '../src/shared/send-outcome';
import { resolveAgent, type Resolved, type ResolveInput } from './agents';
import type { ActivityContext } from './context';
import { withDownloads } from './downloads';

/** A streamed send to an agent that can be asked for its turns heartbeats the task once it has not come to rest for this long. */
const HEARTBEAT_AFTER_MS = 50;

/** What a send heartbeats once the agent named the task, so a retried attempt reads it instead of sending again. */
interface SentDetails {
  sent?: string;
  taskId?: string;
}

/** What the first send is asked: the agent, the turn, the contract and the window's reads. */
export type FirstSend = ResolveInput & {
  turn: SendTurn;
  /** The delegation's own contract, which wins over the agent entry's. */
  contract?: Contract;
  /** At most this many calls in the read-after-send window, whatever the contract. */
  maxReads: number;
  /** An earlier try may have sent this turn: look for it first (see `sendTurn`). */
  mayHaveSent?: { since: number };
  /** The read-after-send window is at most this long, whatever the agent's `readAfterSendMs`. */
  windowMaxMs?: number;
  /** Labels the request inherits from the graph nodes it depends on (docs/data-use.md). */
  inherited?: InheritedLabel[];
};

/**
 * After a send, reads the task with short, growing pauses (5, 20, 80, 320 ms) for up to `withinMs`:
 * an agent that finishes at once is then done in this one activity. Returns the last task read,
 * active or not, and the calls made.
 */
async function readAfterSend(
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
    if (!isActive(task.status.state)) {
      log.info({ remoteTaskId: taskId, state: task.status.state }, 'remote state');
      break;
    }
    pause *= 4;
  }
  return { task, calls };
}

/**
 * Sends the turn on a stream (SendStreamingMessage) and follows it for up to `withinMs` once the task
 * exists: an agent that finishes at once is done in this one call, and its stream's own copy of the
 * task stands unless something about it was doubtful (`StreamedTask`). The window only starts
 * counting down once the agent answered, so a send is never cut before the task id is known.
 */
async function sendOnStream(
  client: AgentClient,
  turn: SendTurn,
  withinMs: number,
  streamed: StreamedTask,
  canLookUp: boolean,
  log: Logger,
): Promise<SendResult | { kind: 'streamed'; streamed: StreamedTask; atRest: boolean }> {
  const window = new AbortController();
  let over = false;
  let answered = false;
  const timer = setTimeout(() => {
    over = true;
    if (answered) window.abort();
  }, withinMs);
  let atRest = false;
  let beat: NodeJS.Timeout | undefined;
  try {
    for await (const event of client.sendStream(turn, AbortSignal.any([cancellationSignal(), window.signal]))) {
      if (!answered && 'message' in event) return { kind: 'message', message: event.message };
      const first = !answered;
      answered = true;
      streamed.apply(event);
      const task = streamed.task;
      if (!task) continue;
      // A retry of this attempt must not send again: the heartbeat names the task it created. An agent
      // that can be asked for the turn (ListTasks) is told only once it did not come to rest at once: a
      // heartbeat is a write on the server, and a retry would find the turn by its messageId anyway.
      if (first && !activityInfo().isLocal) {
        const details: SentDetails = { sent: turn.messageId, taskId: task.id };
        if (canLookUp) beat = setTimeout(() => heartbeat(details), HEARTBEAT_AFTER_MS);
        else heartbeat(details);
      }
      // A follow-up turn's stream begins with the stored task, still showing the question it answers.
      const stale = first && 'task' in event && turn.taskId !== undefined && isInterrupted(task.status.state);
      if (!isActive(task.status.state) && !stale) {
        atRest = true;
        break;
      }
      if (over) break;
    }
  } catch (err) {
    // Before the agent answered, this was the send itself failing: its retry looks for the turn first.
    if (!answered || cancellationSignal().aborted) throw err;
    // After it, the task exists: whatever went wrong (a drop, a malformed event) is the observing
    // activity's to meet, with the task id in history by then.
    if (!window.signal.aborted) log.info({ err: (err as Error).message }, 'the send stream broke; observing instead');
  } finally {
    clearTimeout(timer);
    clearTimeout(beat);
    window.abort();
  }
  if (!streamed.task) throw failure(FailureType.INVALID_AGENT_RESPONSE, `agent ${client.agentName}: SendStreamingMessage gave no task`);
  return { kind: 'streamed', streamed, atRest };
}

/**
 * A direct Message reply as history may hold it: inline when small, else stored, its parts replaced
 * by one data part naming the stored bytes (an acceptance policy can fetch them by reference).
 */
async function boundedReply(ctx: ActivityContext, parts: Part[], inlineSoFar: number | undefined): Promise<Part[]> {
  const { deps } = ctx;
  const inlineMax = Math.min(ctx.inlineMaxBytes, ctx.inlineRoom(inlineSoFar));
  const bytes = Buffer.from(JSON.stringify(parts), 'utf8');
  if (bytes.length <= inlineMax) return parts;
  if (!deps.store) return [{ text: `(the agent's reply of ${bytes.length} bytes was not kept: over ${inlineMax} and no artifact store)` }];
  const stored = await deps.store.put(bytes);
  return [
    {
      data: { storedReply: { ref: stored.ref, sha256: stored.sha256, size: stored.size, mediaType: 'application/json' } },
      mediaType: 'application/json',
    },
  ];
}

/** What `sendTurn` is given: the turn, the agent, and how far it may read the task after the send. */
export interface SendTurnInput {
  delegationId: string;
  agent: ResolvedAgent;
  turn: SendTurn;
  readAfterSend?: { callBudget: number; windowMaxMs?: number };
  /** Bytes the delegation's history holds inline already. */
  inlineSoFar?: number;
  /**
   * An earlier try may have sent this turn though this is the activity's first attempt (a local
   * activity run again, or the task-queue send after one): look for it first, among tasks changed since then (epoch ms).
   */
  mayHaveSent?: { since: number };
  /** Labels the turn's data inherits from the graph nodes its request depends on (the first turn of a node). */
  inherited?: InheritedLabel[];
}

export function sendActivities(ctx: ActivityContext) {
  const { agents } = ctx;

  /**
   * Sends one turn of the caller's data, checked and carried as its data use says (docs/data-use.md);
   * `readAfterSend`: it may read the task a moment after (`readAfterSendMs`), within a budget of calls.
   */
  const sendTurn = (input: SendTurnInput): Promise<SendOutcome> =>
    sendWithDataUse(agents, input.agent, input.turn, (turn) => sendParts({ ...input, turn }), input.inherited);

  async function sendParts(input: SendTurnInput): Promise<SendOutcome> {
    const log = ctx.logFor(input).child({ messageId: input.turn.messageId });
    const client = await agents.clientFor(input.agent);
    const sentAt = new Date().toISOString();
    // 👉 SendMessage is not idempotent. A retry may follow a response that was lost after the agent
    // acted on it (a crash, a timeout): look for the turn first, and send again only if it is not there.
    const info = activityInfo();
    let reconciliation: SendOutcome['reconciliation'];
    let calls = 1;
    const sent = info.heartbeatDetails as SentDetails | undefined;
    if (info.attempt > 1 && sent?.sent === input.turn.messageId && sent.taskId) {
      // The previous attempt's send got its answer (and heartbeated the task) before the attempt died.
      const task = await client.getTask(sent.taskId, cancellationSignal());
      log.warn(
        { remoteTaskId: task.id, attempt: info.attempt },
        'retried send: the previous attempt had sent this turn; not sending it again',
      );
      return { kind: 'task', snapshot: await ctx.snapshot(task), sentAt, reconciliation: 'found', calls };
    }
    if (info.attempt > 1 || input.mayHaveSent) {
      calls += 1;
      const since = new Date((input.mayHaveSent?.since ?? info.scheduledTimestampMs) - 60_000).toISOString();
      const found = await client.findTurn(input.turn.messageId, { taskId: input.turn.taskId, since, signal: cancellationSignal() });
      if (found && found !== 'unsupported') {
        log.warn({ remoteTaskId: found.id, attempt: info.attempt }, 'retried send: the agent already had this turn; not sending it again');
        return { kind: 'task', snapshot: await ctx.snapshot(found), sentAt, reconciliation: 'found', calls: calls - 1 };
      }
      reconciliation = found === 'unsupported' ? 'unsupported' : 'not-found';
      log.warn({ attempt: info.attempt, reconciliation }, 'retried send: sending the turn again');
    }
    const entry = agents.entryOf(input.agent.name);
    // URL downloads belong to the observing activity, whose timeout is made for them; a push agent
    // is read when it pushes, not polled.
    const withinMs =
      input.readAfterSend && !entry.downloads && input.agent.observe !== 'push'
        ? Math.min(entry.readAfterSendMs, input.readAfterSend.windowMaxMs ?? Infinity)
        : 0;
    const onStream = withinMs > 0 && input.agent.observe === 'stream' && input.agent.capabilities?.streaming === true;
    const result = onStream
      ? await sendOnStream(
          client,
          input.turn,
          withinMs,
          ctx.streamedTask(input.turn.taskId, input.inlineSoFar),
          input.agent.reconcile === 'list-tasks',
          log,
        )
      : await client.send(input.turn, cancellationSignal());
    if (result.kind === 'message') {
      log.info({ replyMessageId: result.message.messageId }, 'agent replied with a direct Message');
      const { messageId, contextId } = result.message;
      const reply = {
        messageId,
        parts: await boundedReply(ctx, result.message.parts, input.inlineSoFar),
        ...(contextId ? { contextId } : {}),
      };
      return { kind: 'message', sentAt, reply, ...(reconciliation ? { reconciliation } : {}), calls };
    }
    let task = result.kind === 'task' ? result.task : (result.streamed.task as Task);
    log.info(
      { remoteTaskId: task.id, contextId: task.contextId, state: task.status.state, ...(onStream ? { via: 'stream' } : {}) },
      input.turn.taskId ? 'turn sent' : 'remote task created',
    );
    if (result.kind === 'streamed') {
      // At rest, but the stream's copy is doubtful: the agent's own copy decides.
      if (result.atRest && !result.streamed.trusted) {
        log.info({ remoteTaskId: task.id, why: result.streamed.doubtful }, "reading the task: the stream's copy is doubtful");
        calls += 1;
        task = await client.getTask(task.id, cancellationSignal());
      }
    } else if (withinMs > 0 && isActive(task.status.state)) {
      // A retry of this attempt must not send again: the heartbeat names the task it created.
      if (!info.isLocal) heartbeat({ sent: input.turn.messageId, taskId: task.id } satisfies SentDetails);
      const read = await readAfterSend(client, task.id, withinMs, input.readAfterSend ? input.readAfterSend.callBudget - calls : 0, log);
      calls += read.calls;
      task = read.task ?? task;
    }
    // An agent may answer the send with a task that has already ended.
    const snapshot = await withDownloads(ctx, input.agent.name, await ctx.snapshot(task), log);
    return { kind: 'task', snapshot, sentAt, calls, ...(reconciliation ? { reconciliation } : {}) };
  }

  /** Sends the first turn to the agent `resolved` names, within the contract's budget of calls. */
  async function sendFirst(input: FirstSend, resolved: Resolved): Promise<SendOutcome & { resolved: Resolved }> {
    const budget = input.contract?.maxRemoteCalls ?? resolved.agent.contract?.maxRemoteCalls ?? Infinity;
    const sent = await sendTurn({
      delegationId: input.delegationId,
      agent: resolved.agent,
      turn: input.turn,
      readAfterSend: { callBudget: Math.min(budget, input.maxReads), ...(input.windowMaxMs ? { windowMaxMs: input.windowMaxMs } : {}) },
      ...(input.mayHaveSent ? { mayHaveSent: input.mayHaveSent } : {}),
      ...(input.inherited ? { inherited: input.inherited } : {}),
    });
    return { ...sent, resolved };
  }

  return {
    sendTurn,

    /**
     * The first turn: resolves the agent (as `resolveAgent` does) and sends, in one activity, so a
     * delegation to an agent that finishes at once is one task-queue activity, like a bare workflow's.
     * The read-after-send window's budget is the contract's (the delegation's own, else the entry's).
     */
    async resolveAndSend(input: FirstSend): Promise<SendOutcome & { resolved: Resolved }> {
      return sendFirst(input, await resolveAgent(ctx, input));
    },

    /**
     * The first turn as a local activity, inside the delegation's first workflow task: `resolveAndSend`
     * without the task queue's round trips. A local activity cannot heartbeat, so a run of it after a
     * lost one can only find the turn by asking the agent (ListTasks): an agent that cannot be asked
     * (A2A 0.x) is left to `resolveAndSend`, and nothing is sent here; so is one with URL downloads.
     */
    async resolveAndSendHere(input: FirstSend): Promise<(SendOutcome & { resolved: Resolved }) | { notSent: string }> {
      const resolved = await resolveAgent(ctx, input);
      if (resolved.agent.reconcile !== 'list-tasks') return { notSent: `agent ${resolved.agent.name} cannot list its tasks` };
      // Downloads belong to an activity whose timeout is made for them.
      if (agents.entryOf(resolved.agent.name).downloads) return { notSent: `agent ${resolved.agent.name} has URL downloads` };
      return sendFirst(input, resolved);
    },

    /**
     * Sends the turn that answers AUTH_REQUIRED: the credential is read here, from the worker's
     * environment, so only its name is in history.
     */
    async sendAuthTurn(input: {
      delegationId: string;
      agent: ResolvedAgent;
      /** The delegation's tenant: a credential may be limited to some tenants. */
      tenant?: string;
      turn: Omit<SendTurn, 'parts'>;
      /** The credential's name in the agent's entry. */
      credential: string;
      /** Bytes the delegation's history holds inline already. */
      inlineSoFar?: number;
    }): Promise<SendOutcome> {
      const value = agents.credentialValue(input.agent.name, { name: input.credential, tenant: input.tenant });
      // The credential is the entry's own, for this agent: no caller data, so no label to check.
      return sendParts({
        delegationId: input.delegationId,
        agent: input.agent,
        turn: { ...input.turn, parts: [{ data: { credential: value }, mediaType: 'application/json' }] },
        inlineSoFar: input.inlineSoFar,
      });
    },
  };
}
