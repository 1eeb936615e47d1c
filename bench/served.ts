/**
 * What serving A2A costs: the latency of one task through a Baton-served gateway (a blocking
 * SendMessage over JSON-RPC, and over gRPC) against the same delegation started directly with
 * BatonClient, to an agent that completes at once, on one `baton worker` as shipped. Interleaved, so
 * each sample of the three meets the same server. Every fourth sample also sends a task with a
 * webhook and times its COMPLETED notification (push to callers).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Message, TaskState, type SendMessageRequest, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  type Client as A2AClient,
  type RequestOptions,
} from '@a2a-js/sdk/client';
import type { Client } from '@temporalio/client';
import express from 'express';
import pino from 'pino';
import { GrpcTransportFactory } from '../src/a2a/grpc-transport';
import { BatonClient } from '../src/client/baton-client';
import { GraphClient } from '../src/client/graph-client';
import { ConfigSchema, loopbackAgentEntry } from '../src/config/schema';
import { startAgentServer } from '../src/demo/agent-server';
import { supplierQa } from '../src/demo/supplier-qa';
import { CallerGate } from '../src/limits/caller-gate';
import { configuredBudget } from '../src/limits/configured-budget';
import { CallerTokens } from '../src/auth/caller-tokens';
import { closeServer, listen } from '../src/runtime/listen';
import { prepareServing } from '../src/serve/serving';
import { watchedWorker } from './parked';
import { withSection, writeSection, type ReportSection, type ServerKind } from './report-section';

export interface ServedFigures {
  date: string;
  command: string;
  samples: number;
  /** Milliseconds, p50 and p99, per way of running one task. */
  direct: { p50: number; p99: number };
  jsonRpc: { p50: number; p99: number };
  grpc: { p50: number; p99: number };
  /**
   * Where the time goes, p50 ms: a direct delegation's start and its `result()`; a served JSON-RPC
   * send inside the gateway (from the request reaching express to the response handed to the
   * socket), the rest being the A2A client and HTTP on loopback.
   */
  split?: { directStart: number; directResult: number; jsonRpcGateway: number; jsonRpcRest: number };
  /** The same message sent again after the task ended (a lost response): p50 ms, and tasks it started. */
  retried: { p50: number; started: number };
  /**
   * A task sent with a webhook (`returnImmediately`, push config inline): ms from the send to the
   * webhook's COMPLETED notification, p50 and p99; notifications per task; events in the push workflow.
   */
  push?: {
    samples: number;
    p50: number;
    p99: number;
    notifications: number;
    events: number;
    /** Ms from the change being visible (the task's workflow closed, as Temporal timed it) to the webhook's notification. */
    afterVisible?: { p50: number; p99: number };
    /** Ms from the send to its answer (the task as it exists, the webhook kept), p50 and p99. */
    answered?: { p50: number; p99: number };
  };
  /**
   * `returnImmediately` to a served agent whose agent works `workMs`: ms from the send to its
   * answer, p50 and p99 over `samples`, and the states it answered with.
   */
  immediate?: { samples: number; workMs: number; p50: number; p99: number; states: string[] };
}

export interface ServedOptions {
  client: Client;
  address: string;
  namespace: string;
  samples: number;
  say: (line: string) => void;
}

const TEXT = 'Verify inspection-92 against order A1042, product SN-4471';
const TOKEN = `bench-${randomUUID()}`;

/** How long the agent behind service `slow-qa` works on a task. */
const SLOW_WORK_MS = 3_000;

/** Sends of `returnImmediately` tasks to `slow-qa`, one after another. */
const IMMEDIATE_SAMPLES = 10;

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

const sendOf = (messageId: string): SendMessageRequest => ({
  tenant: '',
  message: Message.fromJSON({ messageId, role: 'ROLE_USER', parts: [{ text: TEXT }] }),
  configuration: undefined,
  metadata: undefined,
});

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export async function measureServed(o: ServedOptions): Promise<Omit<ServedFigures, 'date' | 'command'>> {
  const agent = await startAgentServer(supplierQa({ workMs: 0 }));
  const slow = await startAgentServer(supplierQa({ workMs: SLOW_WORK_MS }));
  const entry = (name: string, url: string) => `  ${name}: { card: "${url}", allowHttp: true, allowPrivateNetwork: true }`;
  // The webhook is on loopback: the worker may post there (never in production).
  const worker = await watchedWorker('bench-served', o.address, [
    'agents:',
    entry('supplier-qa', agent.url),
    entry('slow-qa', slow.url),
    'serve:',
    '  push: { allowHttp: true, allowPrivateNetwork: true }',
  ]);
  const hook = await webhook();
  const caller = { tenant: 'bench', user: 'bench' };
  const opts = { namespace: o.namespace, taskQueue: worker.queue, caller };
  const baton = new BatonClient(o.client.connection, opts);
  const gateway = await startGateway(baton, new GraphClient(o.client.connection, opts), caller, { fast: agent.url, slow: slow.url });
  const connect = (transport: JsonRpcTransportFactory | GrpcTransportFactory, service = 'checked-qa'): Promise<A2AClient> =>
    new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [transport] })).createFromUrl(
      `http://127.0.0.1:${gateway.port}/a2a/${service}/`,
    );
  const auth = { serviceParameters: { Authorization: `Bearer ${TOKEN}` } };
  try {
    const times = sampleSeries();
    const jsonRpc = await connect(new JsonRpcTransportFactory());
    const grpc = await connect(new GrpcTransportFactory());
    const direct = async () => {
      const t0 = performance.now();
      const id = await baton.start({ agent: 'supplier-qa', parts: [{ text: TEXT }] });
      const t1 = performance.now();
      await baton.result(id);
      times.directStart.push(t1 - t0);
      times.directResult.push(performance.now() - t1);
    };
    // Warm up every path (connections, the worker's caches, the card) before measuring.
    for (let i = 0; i < 5; i++) {
      await direct();
      await jsonRpc.sendMessage(sendOf(randomUUID()), auth);
      await grpc.sendMessage(sendOf(randomUUID()), auth);
    }
    times.directStart.length = times.directResult.length = 0;
    const pushedTasks: { taskId: string }[] = [];
    const retriedIds = new Set<string>();
    for (let i = 0; i < o.samples; i++) {
      times.direct.push(await timed(direct));
      const id = randomUUID();
      const sent = await timed(() => jsonRpc.sendMessage(sendOf(id), auth));
      times.jsonRpc.push(sent);
      times.jsonRpcGateway.push(gateway.last());
      times.jsonRpcRest.push(sent - gateway.last());
      times.grpc.push(await timed(() => grpc.sendMessage(sendOf(randomUUID()), auth)));
      if (i % 10 === 0) {
        let taskId = '';
        times.retried.push(
          await timed(async () => {
            const again = await jsonRpc.sendMessage(sendOf(id), auth);
            taskId = 'id' in again ? again.id : '';
          }),
        );
        retriedIds.add(taskId);
      }
      if (i % 4 === 0) {
        const sample = await pushSample(o.client, hook, (messageId) =>
          jsonRpc.sendMessage(pushedSendOf(messageId, `${hook.url}/${messageId}`), auth),
        );
        times.push.push(sample.ms);
        times.answered.push(sample.answered);
        if (sample.taskId) pushedTasks.push({ taskId: sample.taskId });
        if (sample.afterVisible !== undefined) times.afterVisible.push(sample.afterVisible);
      }
      if ((i + 1) % 50 === 0) o.say(`  ${i + 1}/${o.samples} samples`);
    }
    // Each push workflow ends once the end is delivered: its history is then complete.
    const events = await Promise.all(
      pushedTasks.slice(0, 20).map(async ({ taskId }) => {
        const handle = o.client.workflow.getHandle(`${taskId}.push`);
        await handle.result();
        return (await handle.fetchHistory()).events?.length ?? 0;
      }),
    );
    const both = (v: number[]) => ({ p50: percentile(v, 50), p99: percentile(v, 99) });
    const immediate = await immediateAnswers(await connect(new JsonRpcTransportFactory(), 'slow-qa'), auth, baton);
    return {
      samples: o.samples,
      direct: both(times.direct),
      jsonRpc: both(times.jsonRpc),
      grpc: both(times.grpc),
      split: {
        directStart: percentile(times.directStart, 50),
        directResult: percentile(times.directResult, 50),
        jsonRpcGateway: percentile(times.jsonRpcGateway, 50),
        jsonRpcRest: percentile(times.jsonRpcRest, 50),
      },
      // Each retried message found the task of its first send: as many distinct tasks as retries.
      retried: { p50: percentile(times.retried, 50), started: times.retried.length - retriedIds.size },
      push: {
        samples: times.push.length,
        ...both(times.push),
        notifications: hook.posts() / Math.max(1, times.push.length),
        events: percentile(events, 50),
        afterVisible: both(times.afterVisible),
        answered: both(times.answered),
      },
      immediate: { samples: immediate.ms.length, workMs: SLOW_WORK_MS, ...both(immediate.ms), states: immediate.states },
    };
  } finally {
    await gateway.close();
    await worker.stop();
    await agent.close();
    await slow.close();
    await hook.close();
  }
}

/**
 * The Baton-served gateway in front of `agentUrl` (service `checked-qa`), on a free port, with the
 * time the last request spent inside it: from express to the response handed to the socket.
 */
async function startGateway(
  baton: BatonClient,
  graphs: GraphClient,
  caller: { tenant: string; user: string },
  agentUrls: { fast: string; slow: string },
): Promise<{ port: number; last(): number; close(): Promise<void> }> {
  // The benchmark's one caller is not to be held back by the budgets a shared service sets.
  const config = {
    ...ConfigSchema.parse({
      api: {
        rateLimit: { requestsPerMinute: 1_000_000, burst: 100_000 },
        limits: { workStarted: { perMinute: 1_000_000, burst: 100_000 } },
      },
      serve: {
        grpc: { listen: { host: '127.0.0.1', port: 0 } },
        push: { allowHttp: true, allowPrivateNetwork: true },
        services: {
          'checked-qa': {
            description: 'supplier-qa behind Baton',
            skills: [{ id: 'verify', name: 'Verify', description: 'Verifies a report' }],
            delegate: { agent: 'supplier-qa' },
          },
          'slow-qa': {
            description: 'a supplier-qa that works for seconds, behind Baton',
            skills: [{ id: 'verify', name: 'Verify', description: 'Verifies a report' }],
            delegate: { agent: 'slow-qa' },
          },
        },
      },
    }),
    agents: { 'supplier-qa': loopbackAgentEntry(agentUrls.fast), 'slow-qa': loopbackAgentEntry(agentUrls.slow) },
  };
  const gate = new CallerGate(new CallerTokens([{ token: TOKEN, caller }]), configuredBudget(config.api));
  const serving = await prepareServing(config, { baton, graphs, gate, logger: pino({ level: 'error' }) });
  if (!serving) throw new Error('nothing served');
  const app = express();
  let last = 0;
  app.use(
    '/a2a',
    (_req, res, next) => {
      const t0 = performance.now();
      res.once('finish', () => (last = performance.now() - t0));
      next();
    },
    serving.router,
  );
  const http = await listen(app, '127.0.0.1', 0, 'a free port');
  serving.listening(`http://127.0.0.1:${http.port}`);
  return {
    port: http.port,
    last: () => last,
    close: async () => {
      await serving.close();
      await closeServer(http.server);
    },
  };
}

/**
 * One task sent with a webhook: ms from the send to the COMPLETED notification, and from the task's
 * workflow closing (when a reader could first see it ended, as Temporal timed it) to the notification.
 */
async function pushSample(
  client: Client,
  hook: { ended(path: string): Promise<number> },
  send: (messageId: string) => Promise<Message | Task>,
): Promise<{ ms: number; answered: number; taskId?: string; afterVisible?: number }> {
  const messageId = randomUUID();
  const t0 = performance.now();
  const ended = hook.ended(messageId);
  const sent = await send(messageId);
  const answered = performance.now() - t0;
  const receivedAt = await ended;
  const ms = performance.now() - t0;
  if (!('id' in sent)) return { ms, answered };
  const closed = (await client.workflow.getHandle(sent.id).describe()).closeTime;
  return { ms, answered, taskId: sent.id, ...(closed ? { afterVisible: receivedAt - closed.getTime() } : {}) };
}

/**
 * `returnImmediately` sends to a service whose agent works for seconds: ms to each answer and the
 * state it gave; then waits for the tasks to end, so none is left running.
 */
async function immediateAnswers(client: A2AClient, auth: RequestOptions, baton: BatonClient): Promise<{ ms: number[]; states: string[] }> {
  const ms: number[] = [];
  const states = new Set<string>();
  const ids: string[] = [];
  for (let i = 0; i < IMMEDIATE_SAMPLES; i++) {
    const send: SendMessageRequest = {
      ...sendOf(randomUUID()),
      configuration: { acceptedOutputModes: [], returnImmediately: true, historyLength: 0, taskPushNotificationConfig: undefined },
    };
    const t0 = performance.now();
    const answer = await client.sendMessage(send, auth);
    ms.push(performance.now() - t0);
    if ('id' in answer) {
      ids.push(answer.id);
      states.add(TaskState[answer.status?.state ?? 0] ?? String(answer.status?.state));
    }
  }
  await Promise.all(ids.map((id) => baton.result(id)));
  return { ms, states: [...states] };
}

/** The timings of each way of running a task, in ms. */
const sampleSeries = () => ({
  direct: [] as number[],
  directStart: [] as number[],
  directResult: [] as number[],
  jsonRpcGateway: [] as number[],
  jsonRpcRest: [] as number[],
  jsonRpc: [] as number[],
  grpc: [] as number[],
  retried: [] as number[],
  push: [] as number[],
  afterVisible: [] as number[],
  answered: [] as number[],
});

const pushedSendOf = (messageId: string, url: string): SendMessageRequest => ({
  ...sendOf(messageId),
  configuration: {
    acceptedOutputModes: [],
    returnImmediately: true,
    historyLength: 0,
    taskPushNotificationConfig: { tenant: '', id: '', taskId: '', url, token: '', authentication: undefined },
  },
});

/** A webhook on loopback: `ended(path)` resolves when a notification for `/<path>` says the task ended. */
async function webhook(): Promise<{ url: string; ended(path: string): Promise<number>; posts(): number; close(): Promise<void> }> {
  const waiting = new Map<string, (at: number) => void>();
  let posts = 0;
  const server = createServer((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts++;
      res.writeHead(200).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { task?: { status: { state: string } } };
      if (body.task?.status.state === 'TASK_STATE_COMPLETED') waiting.get((req.url ?? '').slice(1))?.(at);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ended: (path) => new Promise<number>((r) => waiting.set(path, r)),
    posts: () => posts,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const SECTION: ReportSection<ServedFigures> = {
  name: 'served',
  marks: ['<!-- served agents: written by bench/served.ts -->', '<!-- end of served agents -->'],
  after: '<!-- end of large graph -->',
  heading: [
    '## Baton serving A2A (docs/serving-a2a.md)',
    '',
    'One task through a Baton-served gateway in front of an agent that completes at once: a blocking SendMessage over JSON-RPC and over gRPC, against the same delegation started directly with `BatonClient` (start, then result), interleaved, on one `baton worker` as shipped; client, serving router and agent in the benchmark process. The served path follows the task’s workflow history by long poll and reads the task only when a workflow task completed or the run closed (decision 0039): no timed reads, and no describe (a watch checks that the task is the caller’s on the history’s first event). Every fourth sample also sends a task with a webhook (`returnImmediately`, the push config inline) and times the webhook’s COMPLETED notification, from the send and from the moment the task’s workflow closed (Temporal’s close time): the push workflow’s watch is woken the same way. A push workflow writes 16 events when its two first activities end within one workflow task and 19 when they end in two (timing).',
  ],
  rows: [
    ['samples of each', (f) => String(f.samples)],
    ['direct delegation, p50 / p99', (f) => `${f.direct.p50.toFixed(0)} / ${f.direct.p99.toFixed(0)} ms`],
    [
      'served, JSON-RPC, p50 / p99 (÷ direct)',
      (f) => `${f.jsonRpc.p50.toFixed(0)} / ${f.jsonRpc.p99.toFixed(0)} ms (${(f.jsonRpc.p50 / f.direct.p50).toFixed(2)}×)`,
    ],
    [
      'served, gRPC, p50 / p99 (÷ direct)',
      (f) => `${f.grpc.p50.toFixed(0)} / ${f.grpc.p99.toFixed(0)} ms (${(f.grpc.p50 / f.direct.p50).toFixed(2)}×)`,
    ],
    [
      'where the time goes, p50: direct = start + result; served JSON-RPC = in the gateway + the A2A client and HTTP',
      (f) =>
        f.split
          ? `${f.split.directStart.toFixed(1)} + ${f.split.directResult.toFixed(1)} ms; ${f.split.jsonRpcGateway.toFixed(1)} + ${f.split.jsonRpcRest.toFixed(1)} ms`
          : 'not measured',
    ],
    ['the same message again (lost response): p50, tasks it started', (f) => `${f.retried.p50.toFixed(0)} ms, ${f.retried.started}`],
    [
      'with a webhook: send to its answer (`returnImmediately`, the webhook kept), p50 / p99',
      (f) => (f.push?.answered ? `${f.push.answered.p50.toFixed(0)} / ${f.push.answered.p99.toFixed(0)} ms` : 'not measured'),
    ],
    [
      'with a webhook: send to the COMPLETED notification, p50 / p99 (samples)',
      (f) => (f.push ? `${f.push.p50.toFixed(0)} / ${f.push.p99.toFixed(0)} ms (${f.push.samples})` : 'not measured'),
    ],
    [
      'with a webhook: the task visibly ended (its workflow closed) to the notification, p50 / p99',
      (f) => (f.push?.afterVisible ? `${f.push.afterVisible.p50.toFixed(0)} / ${f.push.afterVisible.p99.toFixed(0)} ms` : 'not measured'),
    ],
    [
      'with a webhook: COMPLETED notification ÷ blocking SendMessage (JSON-RPC), p50',
      (f) => (f.push ? `${(f.push.p50 / f.jsonRpc.p50).toFixed(2)}×` : 'not measured'),
    ],
    [
      'notifications per task; events in its push workflow',
      (f) => (f.push ? `${f.push.notifications.toFixed(1)}; ${f.push.events}` : 'not measured'),
    ],
    [
      `\`returnImmediately\` to an agent that works ${SLOW_WORK_MS / 1000} s: send to its answer, p50 / p99 (samples); states answered`,
      (f) =>
        f.immediate
          ? `${f.immediate.p50.toFixed(0)} / ${f.immediate.p99.toFixed(0)} ms (${f.immediate.samples}); ${f.immediate.states.join(', ')}`
          : 'not measured',
    ],
  ],
};

export const withServedSection = (out: string, text: string): string => withSection(out, SECTION, text);

export const writeServed = (out: string, kind: ServerKind, figures: ServedFigures): void => writeSection(out, SECTION, kind, figures);
