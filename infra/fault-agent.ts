/**
 * A fault-injecting A2A 1.0 agent (JSON-RPC over HTTP on loopback), configurable per run, for the
 * chaos suite and campaigns: it works like a real agent (tasks, GetTask, ListTasks, CancelTask, and
 * with `streaming` SendStreamingMessage and SubscribeToTask, whose streams carry every status and
 * artifact change) and, as the plan says, drops connections after creating a task, answers bursts of
 * 5xx, answers slowly, sends malformed JSON, unknown enum values or huge bodies, completes while a
 * cancel is in flight, stalls streams and duplicates events. It counts the tasks each first-turn
 * messageId created, so a campaign can count duplicate remote tasks.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express from 'express';
import { closeServer } from '../src/runtime/listen';

export interface FaultPlan {
  /** Probability that SendMessage creates the task, then drops the connection without an answer. */
  dropAfterCreate?: number;
  /** Probability that a call is answered 503 (a burst: the next `burst - 1` calls too). */
  serverErrors?: number;
  /** Length of a 5xx burst. Default 3. */
  burst?: number;
  /** Delay before every answer, in ms. */
  slowMs?: number;
  /** Probability that GetTask answers JSON that does not parse: whole and well framed, but cut in the middle of a string. */
  malformedJson?: number;
  /** The first this many GetTask answers are cut in transit: the declared length, the bytes up to the middle of a string, then the connection closes. */
  cutInTransit?: number;
  /** The first this many GetTask answers are chunked bodies that never end (a space every 100 ms after the start of the JSON). */
  endlessBody?: number;
  /** Probability that GetTask answers a state the protocol does not have. */
  wrongEnum?: number;
  /** Probability that GetTask answers a 12 MiB body. */
  hugeBody?: number;
  /** CancelTask finds the task COMPLETED (it finished while the cancel was on its way). */
  completeOnCancel?: boolean;
  /** SubscribeToTask sends its headers, then nothing (SendStreamingMessage streams as usual). */
  stallStream?: boolean;
  /** A stream's second event names a state the protocol does not have. */
  malformedStream?: boolean;
  /** Every stream event is written twice. */
  duplicateEvents?: boolean;
  /** Advertise streaming on the card. Default false. */
  streaming?: boolean;
  /** Time a task works before it completes, in ms. Default 200. */
  workMs?: number;
  /** Tasks ask for input once (INPUT_REQUIRED) before they complete. */
  askOnce?: boolean;
  /** SendMessage is refused with this text as an invalid-params error (an agent quoting business data back). */
  refuseWith?: string;
  /** Seed of the fault dice, so a run can be repeated. */
  seed?: number;
  /** The result artifact carries a text part of this many bytes besides its data (a large artifact on the wire). Default none. */
  artifactBytes?: number;
}

interface TaskRecord {
  id: string;
  contextId: string;
  state: string;
  history: unknown[];
  artifacts: unknown[];
  updated: string;
  asked: boolean;
}

/** mulberry32: small, seedable, good enough for dice. */
function dice(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultAgent {
  url = '';
  /** The URL callers reach the agent at, written into its card (a proxy in front of it). Default `url`. */
  publicUrl?: string;
  /** Tasks created per first-turn messageId: more than one is a duplicate remote task. */
  readonly tasksByMessageId = new Map<string, string[]>();
  readonly faults: Record<string, number> = {};
  readonly calls: Record<string, number> = {};
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly roll: () => number;
  private burstLeft = 0;
  private server?: Server;

  constructor(
    readonly name: string,
    readonly plan: FaultPlan = {},
  ) {
    this.roll = dice(plan.seed ?? 1);
  }

  /** Tasks the agent created more than once for one turn. */
  get duplicateTasks(): number {
    return [...this.tasksByMessageId.values()].reduce((n, ids) => n + ids.length - 1, 0);
  }

  /** True for the first `times` calls that ask (counted per fault). */
  private once(times: number | undefined, fault: string): boolean {
    if (!times || (this.faults[fault] ?? 0) >= times) return false;
    this.faults[fault] = (this.faults[fault] ?? 0) + 1;
    return true;
  }

  private chance(p: number | undefined, fault: string): boolean {
    if (!p || this.roll() >= p) return false;
    this.faults[fault] = (this.faults[fault] ?? 0) + 1;
    return true;
  }

  private json(task: TaskRecord): Record<string, unknown> {
    return {
      id: task.id,
      contextId: task.contextId,
      status: { state: task.state, timestamp: task.updated },
      artifacts: task.artifacts,
      history: task.history,
    };
  }

  private set(task: TaskRecord, state: string): void {
    task.state = state;
    task.updated = new Date().toISOString();
  }

  private work(task: TaskRecord): void {
    setTimeout(() => {
      if (task.state !== 'TASK_STATE_WORKING') return;
      if (this.plan.askOnce && !task.asked) {
        task.asked = true;
        this.set(task, 'TASK_STATE_INPUT_REQUIRED');
        return;
      }
      const bulk = this.plan.artifactBytes ? [{ text: 'x'.repeat(this.plan.artifactBytes), mediaType: 'text/plain' }] : [];
      task.artifacts = [
        {
          artifactId: `${task.id}-result`,
          name: 'result',
          parts: [{ data: { ok: true, task: task.id }, mediaType: 'application/json' }, ...bulk],
        },
      ];
      this.set(task, 'TASK_STATE_COMPLETED');
    }, this.plan.workMs ?? 200).unref();
  }

  private card(): Record<string, unknown> {
    return {
      name: this.name,
      description: 'A fault-injecting agent',
      version: '1',
      supportedInterfaces: [{ url: `${this.publicUrl ?? this.url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: this.plan.streaming ?? false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['application/json'],
      skills: [{ id: 'work', name: 'work', description: 'does work', tags: ['chaos'] }],
    };
  }

  async start(): Promise<this> {
    const app = express();
    app.use(express.json({ limit: '2mb' }));
    app.get('/.well-known/agent-card.json', (_req, res) => void res.json(this.card()));
    app.post('/rpc', (req, res) => {
      const request = req.body as { id: unknown; method: string; params: Record<string, unknown> };
      this.calls[request.method] = (this.calls[request.method] ?? 0) + 1;
      const answer = (result: unknown): void => void res.json({ jsonrpc: '2.0', id: request.id, result });
      const error = (code: number, message: string): void => void res.json({ jsonrpc: '2.0', id: request.id, error: { code, message } });
      const go = (): void => {
        if (this.burstLeft > 0 || this.chance(this.plan.serverErrors, 'serverErrors')) {
          this.burstLeft = this.burstLeft > 0 ? this.burstLeft - 1 : (this.plan.burst ?? 3) - 1;
          return void res.status(503).json({ error: 'overloaded' });
        }
        this.handle(request, res, answer, error);
      };
      if (this.plan.slowMs) setTimeout(go, this.plan.slowMs).unref();
      else go();
    });
    this.server = await new Promise<Server>((resolveListen) => {
      const s = app.listen(0, '127.0.0.1', () => resolveListen(s));
    });
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  private handle(
    request: { id: unknown; method: string; params: Record<string, unknown> },
    res: express.Response,
    answer: (result: unknown) => void,
    error: (code: number, message: string) => void,
  ): void {
    const p = request.params ?? {};
    switch (request.method) {
      case 'SendMessage':
      case 'SendStreamingMessage': {
        if (this.plan.refuseWith !== undefined) return error(-32602, this.plan.refuseWith);
        if (request.method === 'SendStreamingMessage' && !this.plan.streaming) return error(-32004, 'streaming is not supported');
        const message = (p.message ?? {}) as { messageId?: string; taskId?: string; contextId?: string };
        let task: TaskRecord;
        if (message.taskId) {
          const found = this.tasks.get(message.taskId);
          if (!found) return error(-32001, 'task not found');
          if (['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'].includes(found.state))
            return error(-32004, 'task is terminal');
          task = found;
          task.history.push(message);
          this.set(task, 'TASK_STATE_WORKING');
        } else {
          task = {
            id: randomUUID(),
            contextId: message.contextId || randomUUID(),
            state: 'TASK_STATE_WORKING',
            history: [message],
            artifacts: [],
            updated: new Date().toISOString(),
            asked: false,
          };
          this.tasks.set(task.id, task);
          const first = message.messageId ?? '';
          this.tasksByMessageId.set(first, [...(this.tasksByMessageId.get(first) ?? []), task.id]);
        }
        this.work(task);
        if (!message.taskId && this.chance(this.plan.dropAfterCreate, 'dropAfterCreate')) return void res.socket?.destroy();
        if (request.method === 'SendStreamingMessage') return this.stream(task, request.id, res);
        return answer({ task: this.json(task) });
      }
      case 'GetTask': {
        const task = this.tasks.get(String(p.id));
        if (!task) return error(-32001, 'task not found');
        if (this.chance(this.plan.malformedJson, 'malformedJson'))
          return void res
            .type('application/json')
            .send(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":{"id":"${task.id.slice(0, 8)}`);
        if (this.once(this.plan.cutInTransit, 'cutInTransit')) {
          const whole = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: this.json(task) }));
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(whole.length) });
          // The bytes up to the middle of the task id (inside a string), then the connection goes.
          const cut = whole.indexOf(task.id) + Math.floor(task.id.length / 2);
          res.write(whole.subarray(0, cut), () => res.socket?.destroy());
          return;
        }
        if (this.once(this.plan.endlessBody, 'endlessBody')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":`);
          const drip = setInterval(() => res.write(' '), 100);
          res.on('close', () => clearInterval(drip));
          return;
        }
        if (this.chance(this.plan.wrongEnum, 'wrongEnum'))
          return answer({ ...this.json(task), status: { state: 'TASK_STATE_DONE_ISH', timestamp: task.updated } });
        if (this.chance(this.plan.hugeBody, 'hugeBody'))
          return answer({ ...this.json(task), metadata: { padding: 'x'.repeat(12 * 1024 * 1024) } });
        return answer(this.json(task));
      }
      case 'ListTasks': {
        const tasks = [...this.tasks.values()].map((t) => this.json(t));
        return answer({ tasks, nextPageToken: '', pageSize: tasks.length, totalSize: tasks.length });
      }
      case 'CancelTask': {
        const task = this.tasks.get(String(p.id));
        if (!task) return error(-32001, 'task not found');
        if (this.plan.completeOnCancel && task.state === 'TASK_STATE_WORKING') {
          this.faults.completeOnCancel = (this.faults.completeOnCancel ?? 0) + 1;
          task.artifacts = [
            { artifactId: `${task.id}-result`, name: 'result', parts: [{ data: { ok: true }, mediaType: 'application/json' }] },
          ];
          this.set(task, 'TASK_STATE_COMPLETED');
          return error(-32002, 'task is not cancelable: it completed');
        }
        if (task.state !== 'TASK_STATE_COMPLETED') this.set(task, 'TASK_STATE_CANCELED');
        return answer(this.json(task));
      }
      case 'SubscribeToTask': {
        const task = this.tasks.get(String(p.id));
        if (!task) return error(-32001, 'task not found');
        if (this.plan.stallStream) {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          this.faults.stallStream = (this.faults.stallStream ?? 0) + 1;
          return; // headers, then silence
        }
        return this.stream(task, request.id, res);
      }
      default:
        return error(-32601, `method ${request.method} not found`);
    }
  }

  /**
   * The task's events on a stream: the task first, then each artifact it gains and each state it
   * enters, until it ends or asks for input.
   */
  private stream(task: TaskRecord, id: unknown, res: express.Response): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let eventId = 0;
    const send = (result: unknown): void => {
      // Each event has an SSE id; a duplicated event repeats its id as well as its data.
      const frame = `id: ${++eventId}\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;
      res.write(frame);
      if (this.plan.duplicateEvents) {
        this.faults.duplicateEvents = (this.faults.duplicateEvents ?? 0) + 1;
        res.write(frame);
      }
    };
    send({ task: this.json(task) });
    if (this.chance(this.plan.malformedStream ? 1 : 0, 'malformedStream'))
      send({
        statusUpdate: { taskId: task.id, contextId: task.contextId, status: { state: 'TASK_STATE_DONE_ISH', timestamp: task.updated } },
      });
    let last = task.state;
    let artifactsSent = task.artifacts.length;
    const tick = setInterval(() => {
      for (const artifact of task.artifacts.slice(artifactsSent))
        send({ artifactUpdate: { taskId: task.id, contextId: task.contextId, artifact, append: false, lastChunk: true } });
      artifactsSent = task.artifacts.length;
      if (task.state !== last) {
        last = task.state;
        send({ statusUpdate: { taskId: task.id, contextId: task.contextId, status: { state: task.state, timestamp: task.updated } } });
      }
      if (
        ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED', 'TASK_STATE_INPUT_REQUIRED'].includes(
          task.state,
        )
      ) {
        clearInterval(tick);
        res.end();
      }
    }, 20);
    res.on('close', () => clearInterval(tick));
  }

  async close(): Promise<void> {
    if (this.server) await closeServer(this.server);
  }
}
