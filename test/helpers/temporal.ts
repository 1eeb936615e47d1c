/**
 * One Temporal server and one workflow bundle per test process. `test/run.ts` starts the server once
 * for the whole run and passes TEMPORAL_ADDRESS; a test file run alone starts its own. Where no
 * server can be had, tests fail with the resolver's how-to message: they never skip.
 */
import type { Lookup } from '../../src/a2a/guarded-fetch';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { NativeConnection, type Worker } from '@temporalio/worker';
import pino, { type Logger } from 'pino';
import { PolicyRegistry } from '../../src/acceptance/policies';
import type { ArtifactStore } from '../../src/artifacts/store';
import { BatonClient } from '../../src/client/baton-client';
import { loopbackAgentEntry, type AgentEntry, type PushConfig, type ServeConfig } from '../../src/config/schema';
import { buildWorkflowBundle } from '../../src/runtime/bundle-workflows';
import { installTemporalRuntime } from '../../src/runtime/logger';
import { startTemporal, type RunningServer } from '../../src/runtime/temporal-server';
import { createBatonWorker } from '../../src/runtime/worker';

let server: Promise<RunningServer> | undefined;
let bundle: Promise<{ code: string }> | undefined;

export function testServer(): Promise<RunningServer> {
  server ??= startTemporal({ uiPort: false }).then((started) => {
    // A file run alone starts its own server, in a process group of its own: the test runner's forced
    // exit would leave it running, so it goes when this process does.
    if (started.pid) process.once('exit', () => stopQuietly(started.pid as number));
    return started;
  });
  return server;
}

function stopQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}

export function testBundle(): Promise<{ code: string }> {
  bundle ??= buildWorkflowBundle().then((code) => ({ code }));
  return bundle;
}

export async function stopTestServer(): Promise<void> {
  if (server) await (await server).stop();
}

/** An agent entry for a loopback demo agent. */
export const loopbackAgent = loopbackAgentEntry;

export interface TestWorkerContext {
  client: Client;
  taskQueue: string;
  worker: Worker;
  logger: Logger;
}

/** A BatonClient on the test worker's task queue, acting as `tenant`/`user` (default acme/ops-1). */
export function batonFor(ctx: TestWorkerContext, tenant = 'acme', user = 'ops-1'): BatonClient {
  return new BatonClient(ctx.client.connection, {
    namespace: ctx.client.options.namespace,
    taskQueue: ctx.taskQueue,
    caller: { tenant, user },
  });
}

/**
 * Runs `fn` with a worker on a task queue of its own, so test files can share one server safely.
 * `logLines` collects the activities' pino lines for assertions.
 */
export async function withWorker<T>(
  agents: Record<string, AgentEntry>,
  fn: (ctx: TestWorkerContext) => Promise<T>,
  opts: {
    policies?: PolicyRegistry;
    logLines?: Record<string, unknown>[];
    poll?: { initialMs: number; maxMs: number };
    maxActivities?: number;
    artifactsPath?: string;
    /** The worker's artifact store itself (one that fails, say), instead of the one the config names. */
    artifactStore?: ArtifactStore;
    /** The whole artifacts section (an object store, say), instead of `artifactsPath` and `inline`. */
    artifacts?: Record<string, unknown>;
    /** Caps on inline bytes (artifacts section), with `artifactsPath`. */
    inline?: { snapshotInlineMaxBytes?: number; delegationInlineMaxBytes?: number };
    push?: PushConfig;
    /** The `serve` section the worker reads (`serve.push`: how it posts to callers' webhooks). */
    serve?: ServeConfig;
    streamSilenceMs?: number;
    /** `worker.continueAsNewAfterEvents`: low, to see delegations continue as new within a test. */
    continueAsNewAfterEvents?: number;
    /** `worker.graphBackstop`: short, to see a continued graph ask about its carried nodes within a test. */
    graphBackstop?: string;
    /** Tracing was started in this process: use the traced workflow bundle setup built. */
    traced?: boolean;
    /** The activities' DNS lookup (default: the system's). */
    lookup?: Lookup;
    /** Where the worker (not the test's client) reaches the server: a fault proxy in front of it. Default: the server. */
    workerAddress?: string;
    /** The task queue: a second worker on the first one's queue, say. Default: one of its own. */
    taskQueue?: string;
  } = {},
): Promise<T> {
  installTemporalRuntime(pino({ level: 'warn' }, pino.destination(2)));
  const { address, namespace } = await testServer();
  const logger = pino(
    { level: 'info' },
    {
      write(line: string) {
        opts.logLines?.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  const taskQueue = opts.taskQueue ?? `test-${randomUUID()}`;
  const nativeConnection = await NativeConnection.connect({ address: opts.workerAddress ?? address });
  const connection = await Connection.connect({ address });
  try {
    const worker = await createBatonWorker({
      connection: nativeConnection,
      namespace,
      taskQueue,
      config: {
        agents,
        ...(opts.artifactsPath ? { artifacts: { path: opts.artifactsPath, inlineMaxBytes: 64 * 1024, ...opts.inline } as never } : {}),
        ...(opts.artifacts ? { artifacts: opts.artifacts as never } : {}),
        ...(opts.push ? { push: opts.push } : {}),
        ...(opts.serve ? { serve: opts.serve } : {}),
        ...(opts.continueAsNewAfterEvents || opts.graphBackstop
          ? {
              worker: {
                maxCachedWorkflows: 100,
                maxConcurrentActivities: 100,
                ...(opts.continueAsNewAfterEvents ? { continueAsNewAfterEvents: opts.continueAsNewAfterEvents } : {}),
                ...(opts.graphBackstop ? { graphBackstop: opts.graphBackstop } : {}),
              },
            }
          : {}),
      },
      logger,
      ...(opts.artifactStore ? { artifactStore: opts.artifactStore } : {}),
      policies: opts.policies,
      ...(opts.traced ? {} : { workflowBundle: await testBundle() }),
      activityOverrides: {
        poll: opts.poll ?? { initialMs: 50, maxMs: 500 },
        ...(opts.streamSilenceMs ? { streamSilenceMs: opts.streamSilenceMs } : {}),
        ...(opts.lookup ? { lookup: opts.lookup } : {}),
      },
      ...(opts.maxActivities ? { workerOptions: { maxConcurrentActivityTaskExecutions: opts.maxActivities } } : {}),
    });
    const client = new Client({ connection, namespace });
    return await worker.runUntil(fn({ client, taskQueue, worker, logger }));
  } finally {
    await connection.close();
    await nativeConnection.close();
  }
}

/**
 * A workflow's history as searchable text: every byte field (payloads) read as UTF-8, so a search sees
 * what history really holds (JSON.stringify would show protobuf's base64 instead).
 */
export async function historyText(client: Client, workflowId: string): Promise<string> {
  const texts: string[] = [];
  const walk = (v: unknown, depth = 0): void => {
    if (depth > 40 || v === null || typeof v !== 'object') {
      if (typeof v === 'string') texts.push(v);
      return;
    }
    if (v instanceof Uint8Array) texts.push(Buffer.from(v).toString('utf8'));
    else for (const child of Object.values(v)) walk(child, depth + 1);
  };
  walk(await client.workflow.getHandle(workflowId).fetchHistory());
  return texts.join('\n');
}

/** A workflow's history size in bytes, as the server stores it (protobuf). */
export async function historyBytes(client: Client, workflowId: string): Promise<number> {
  return temporal.api.history.v1.History.encode(await client.workflow.getHandle(workflowId).fetchHistory()).finish().length;
}

/** One run of a workflow: its id, its event count, and whether it continued as new. */
export interface WorkflowRun {
  runId: string;
  events: number;
  continued: boolean;
  /** Updates this run accepted. */
  updates: number;
  /** Search attribute writes in this run. */
  upserts: number;
}

/** Every run of a workflow id, oldest first, walked back from the latest through their start events. */
export async function runsOf(client: Client, workflowId: string): Promise<WorkflowRun[]> {
  const runs: WorkflowRun[] = [];
  let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
  while (runId) {
    const history: temporal.api.history.v1.IHistory = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    runs.unshift({
      runId,
      events: events.length,
      continued: !!events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes,
      updates: events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length,
      upserts: events.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes).length,
    });
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return runs;
}
