/**
 * Baton as a Temporal Nexus service (#48): caller workflows in other namespaces delegate through the
 * endpoint `baton setup --nexus` created, on the dev server. A Python caller (the official temporalio
 * SDK) delegates to supplier-qa, answers its question and receives the ACCEPTED record; a TypeScript
 * caller cancels mid-flight and sees CANCELED with the remote task canceled; the worker is SIGKILLed
 * while an operation runs and the caller still gets its result; bad input gets the right handler error
 * and starts nothing; one idempotency key is one delegation.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import pino from 'pino';
import { installTemporalRuntime } from '../../src/runtime/logger';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { ensureNamespace } from '../../src/client/namespace-setup';
import { batonPlugin } from '../../src/embed/baton-plugin';
import { ensureNexusEndpoint } from '../../src/nexus/endpoint-setup';
import { buildWorkflowBundle } from '../../src/runtime/bundle-workflows';
import { projectRoot } from '../../src/runtime/project-root';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import type { GraphRecord } from '../../src/shared/graph-types';
import { runCli, saysOneLine, userEnv, type CliProcess } from '../../infra/cli-process';
import { loopbackAgent, testServer } from '../helpers/temporal';
import { kill, workerProcesses, type WorkerProcesses } from '../helpers/worker-process';
import type { Told } from '../workflows/nexus-callers';

const PYTHON = join(projectRoot(), '.baton', 'tools', 'temporal-python-1.35.0', 'bin', 'python');
const PARTIAL = 'Verify inspection-92 against order A1042';
const FULL = 'Verify inspection report inspection-92 against order A1042 for SN-4471';

/** Runs the Python caller to its end; its JSON line, or a failure with what it printed. */
function pythonCaller(address: string, namespace: string, endpoint: string, workflowId: string): Promise<Record<string, unknown>> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(
      PYTHON,
      [join(projectRoot(), 'test', 'interop', 'python-nexus-caller.py'), address, namespace, endpoint, workflowId],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`the Python caller exited with ${code}:\n${err}`));
      resolveRun(JSON.parse(out.trim().split('\n').pop() as string) as Record<string, unknown>);
    });
  });
}

/** The last error type the caller was told on the cause chain (the Nexus handler error's type). */
const typeOf = (t: Told | undefined): string | undefined =>
  t?.chain
    .map((c) => c.type)
    .filter(Boolean)
    .pop();
const messageOf = (t: Told | undefined): string => t?.chain.map((c) => c.message).join(' | ') ?? '';

describe('Baton as a Nexus service', () => {
  const run = randomUUID().slice(0, 8);
  const endpoint = `baton-${run}`;
  const callers = `nexus-callers-${run}`;
  const others = `nexus-others-${run}`;
  const strangers = `nexus-strangers-${run}`;
  let agent: RunningAgent;
  let slowAgent: RunningAgent;
  let stack: WorkerProcesses;
  let address: string;
  let connection: Connection;
  let native: NativeConnection;
  const callerWorkers: Worker[] = [];
  const running: Promise<void>[] = [];
  const created: string[] = [];
  let batonWorker: CliProcess;
  let slowTaskCreated: () => void = () => {};
  const slowTask = new Promise<void>((r) => (slowTaskCreated = r));

  /** A client of `namespace` whose caller workflows run on a worker of their own there. */
  const callerClient = (namespace: string): Client => new Client({ connection, namespace });
  const taskQueue = `nexus-callers-${run}`;

  before(async () => {
    assert.ok(existsSync(PYTHON), `no ${PYTHON}: run npm run setup -- --test (it installs temporalio from PyPI)`);
    const server = await testServer();
    address = server.address;
    agent = await startAgentServer(supplierQa({ workMs: 50, onTaskCreated: (id) => created.push(id) }));
    slowAgent = await startAgentServer(supplierQa({ workMs: 4_000, onTaskCreated: () => slowTaskCreated() }));
    stack = await workerProcesses({ 'supplier-qa': agent.url, 'supplier-qa-slow': slowAgent.url }, `nexus-${run}`, [
      'nexus:',
      `  endpoint: ${endpoint}`,
      '  callers:',
      `    - { namespace: "${callers}", tenant: acme, user: orders-app }`,
      `    - { namespace: "${others}", tenant: globex }`,
      // One stream per caller: a second `status` wait of the same caller is refused until the first ends.
      'api: { limits: { streams: 1 } }',
    ]);
    batonWorker = await stack.start();
    connection = await Connection.connect({ address });
    for (const ns of [callers, others, strangers]) await ensureNamespace(connection, ns, 86_400);
    installTemporalRuntime(pino({ level: 'warn' }));
    native = await NativeConnection.connect({ address });
    const code = await buildWorkflowBundle({ workflowsPath: require.resolve('../workflows/nexus-callers') });
    for (const namespace of [callers, others, strangers]) {
      const worker = await Worker.create({ connection: native, namespace, taskQueue, workflowBundle: { code } });
      callerWorkers.push(worker);
      running.push(worker.run());
    }
  });

  after(async () => {
    if (batonWorker && batonWorker.child.exitCode === null && batonWorker.child.signalCode === null) {
      batonWorker.child.kill('SIGTERM');
      await batonWorker.exited;
    }
    for (const w of callerWorkers) w.shutdown();
    await Promise.all(running);
    await native?.close();
    await connection?.close();
    await stack?.close();
    await agent?.close();
    await slowAgent?.close();
  });

  const env = () => userEnv({ BATON_CONFIG: stack.config });

  it('baton setup --nexus creates the endpoint, then finds it; config check shows it', async () => {
    // The worker started before the endpoint existed, and said so.
    assert.ok(
      batonWorker.logs().some((l) => String(l.msg).startsWith(`Nexus endpoint ${endpoint} does not exist`)),
      batonWorker.stderr,
    );
    const first = await runCli(['setup', '--nexus'], env());
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, new RegExp(`nexus endpoint ${endpoint}: created, targeting namespace \\S+, task queue nexus-${run}`));
    const again = await runCli(['setup', '--nexus', '--json'], env());
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual((JSON.parse(again.stdout) as { nexusEndpoint: unknown }).nexusEndpoint, {
      endpoint,
      target: { namespace: (await testServer()).namespace, taskQueue: `nexus-${run}` },
      created: false,
    });
    // Without a nexus section there is nothing to set up: said in one line, before connecting.
    const bare = `${stack.config}.bare.yaml`;
    writeFileSync(bare, readFileSync(stack.config, 'utf8').split('\nnexus:')[0] as string);
    saysOneLine(
      await runCli(['setup', '--nexus'], userEnv({ BATON_CONFIG: bare })),
      2,
      /^baton: --nexus: the config has no nexus section to set up; add one/,
    );
    const check = await runCli(['config', 'check', '--json'], env());
    const report = JSON.parse(check.stdout) as { nexus: { endpoint: string; callers: string[] } };
    assert.equal(report.nexus.endpoint, endpoint);
    assert.deepEqual(report.nexus.callers, [`${callers} → tenant acme as orders-app`, `${others} → tenant globex as nexus:${others}`]);
  });

  it('a Python caller workflow delegates, answers the question through answer, and receives the ACCEPTED record', async () => {
    const workflowId = `py-caller-${run}`;
    const seen = await pythonCaller(address, callers, endpoint, workflowId);
    const record = seen.record as DelegationRecord;
    assert.equal(record.outcome?.kind, 'ACCEPTED', JSON.stringify(record.outcome));
    assert.equal(record.tenant, 'acme');
    assert.equal(record.owner, 'orders-app');
    assert.equal(record.remote.state, 'TASK_STATE_COMPLETED');
    assert.match(record.id, /^acme:nexus-[0-9a-f]{32}$/);
    const pending = seen.pending as { requestId: string; kind: string };
    assert.equal(pending.kind, 'input');
    assert.equal(record.turns.length, 2);
    assert.equal(record.turns[1]?.by, 'acme/orders-app');
    assert.match(JSON.stringify(record.turns[1]?.parts), /SN-4471/);
    assert.ok(String((seen.sent as { messageId: string }).messageId).length > 0);
    // The second answer to the same question: refused, non-retryable, with Baton's one line.
    const refused = seen.refused as { message: string };
    assert.match(refused.message, /not pending|is settled|no request is pending|answered/i, JSON.stringify(refused));
    // The caller's history shows the operation scheduled, started (async, with its token) and completed.
    const events = (await callerClient(callers).workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const kinds = events.map((e) => Object.keys(e).find((k) => k.endsWith('EventAttributes')) ?? '');
    for (const k of [
      'nexusOperationScheduledEventAttributes',
      'nexusOperationStartedEventAttributes',
      'nexusOperationCompletedEventAttributes',
    ])
      assert.ok(kinds.includes(k), `${k} in ${kinds.join(', ')}`);
    const startedEvent = events.find((e) => e.nexusOperationStartedEventAttributes)?.nexusOperationStartedEventAttributes;
    assert.equal(startedEvent?.operationToken, seen.token);
    // Baton's delegation workflow carries the caller's completion callback.
    const described = await stack.baton.client.workflow.getHandle(record.id).describe();
    assert.equal(described.status.name, 'COMPLETED');
    assert.ok((described.raw.callbacks ?? []).length >= 1, 'the delegation holds the Nexus completion callback');
    // Started eagerly: its first workflow task came back to the worker in the start's answer.
    const start = (await stack.baton.client.workflow.getHandle(record.id).fetchHistory()).events?.[0];
    assert.equal(start?.workflowExecutionStartedEventAttributes?.eagerExecutionAccepted, true, 'the server accepted an eager start');
  });

  /** Runs a caller workflow in `namespace` to its end. */
  const callerRun = <T>(namespace: string, workflow: string, args: unknown[]): Promise<T> =>
    callerClient(namespace).workflow.execute<(...a: unknown[]) => Promise<T>>(workflow, {
      taskQueue,
      workflowId: `${workflow}-${randomUUID()}`,
      args,
      workflowExecutionTimeout: '3m',
    });

  it('a TypeScript caller cancels mid-flight: it sees CANCELED with the remote task canceled', async () => {
    const seen = await callerRun<{ token?: string; asked: boolean; result?: DelegationRecord; error?: Told; after?: DelegationRecord }>(
      callers,
      'delegateThenCancel',
      [endpoint, { agent: 'supplier-qa', text: PARTIAL }],
    );
    assert.ok(seen.asked, 'the agent asked before the cancel');
    // The operation completes with the settled record (not a bare cancellation), as `baton cancel` answers.
    assert.ok(seen.result, `the operation's result is the record: ${JSON.stringify(seen.error)}`);
    assert.deepEqual(seen.after, seen.result, 'status afterwards reads the same record');
    const record = seen.result;
    assert.equal(record?.outcome?.kind, 'CANCELED', JSON.stringify(seen));
    assert.equal(record?.remote.state, 'TASK_STATE_CANCELED', 'the remote task was canceled, and its real final state kept');
    assert.equal(record?.cancel?.by, 'acme/orders-app');
    assert.match(record?.cancel?.reason ?? '', /Nexus operation that started it was canceled/);
  });

  it('the Baton worker SIGKILLed while the operation runs: the caller gets its result once a new worker runs', async () => {
    const key = `kill-${run}`;
    const workflowId = `killed-${run}`;
    const handle = await callerClient(callers).workflow.start('delegateAndWait', {
      taskQueue,
      workflowId,
      args: [endpoint, { agent: 'supplier-qa-slow', text: FULL, idempotencyKey: key }],
      workflowExecutionTimeout: '3m',
    });
    // The agent is working on it (4 s) when the worker dies.
    await slowTask;
    await kill(batonWorker);
    batonWorker = await stack.start();
    const record = (await handle.result()) as DelegationRecord;
    assert.equal(record.id, `acme:${key}`);
    assert.equal(record.outcome?.kind, 'ACCEPTED', JSON.stringify(record.outcome));
  });

  it('one idempotency key is one delegation; a key whose delegation ended answers its record at once', async () => {
    const key = `twice-${run}`;
    const before = created.length;
    const twice = await callerRun<{ tokens: (string | undefined)[]; records: DelegationRecord[] }>(callers, 'delegateTwice', [
      endpoint,
      { agent: 'supplier-qa', text: FULL, idempotencyKey: key },
    ]);
    assert.equal(twice.tokens[0], twice.tokens[1]);
    assert.deepEqual(
      twice.records.map((r) => [r.id, r.outcome?.kind]),
      [
        [`acme:${key}`, 'ACCEPTED'],
        [`acme:${key}`, 'ACCEPTED'],
      ],
    );
    assert.equal(created.length - before, 1, 'the agent saw one task');
    const again = await callerRun<{ result?: DelegationRecord; error?: Told }>(callers, 'callOnce', [
      endpoint,
      'delegate',
      { agent: 'supplier-qa', text: FULL, idempotencyKey: key },
    ]);
    assert.equal(again.result?.id, `acme:${key}`, JSON.stringify(again.error));
    assert.equal(created.length - before, 1, 'still one task');
  });

  it('runGraph runs a task graph to its settled record; an unknown agent in it is refused before it starts', async () => {
    const graph = {
      nodes: [
        { id: 'check', agent: 'supplier-qa', text: FULL },
        { id: 'recheck', agent: 'supplier-qa', text: FULL, dependsOn: ['check'] },
      ],
    };
    const ran = await callerRun<{ result?: GraphRecord; error?: Told }>(callers, 'callOnce', [
      endpoint,
      'runGraph',
      { graph, idempotencyKey: `g-${run}` },
    ]);
    assert.equal(ran.result?.id, `acme:g-${run}`, JSON.stringify(ran.error));
    assert.equal(ran.result?.status, 'SETTLED');
    assert.equal(ran.result?.tenant, 'acme');
    assert.deepEqual(
      ran.result?.nodes.map((n) => [n.id, n.outcome]),
      [
        ['check', 'ACCEPTED'],
        ['recheck', 'ACCEPTED'],
      ],
    );
    const refused = await callerRun<{ result?: GraphRecord; error?: Told }>(callers, 'callOnce', [
      endpoint,
      'runGraph',
      { graph: { nodes: [{ id: 'x', agent: 'nobody', text: 'x' }] }, idempotencyKey: `g-bad-${run}` },
    ]);
    assert.equal(typeOf(refused.error), 'BAD_REQUEST', JSON.stringify(refused));
    assert.match(messageOf(refused.error), /the graph spec is not valid: .*nobody/);
    await assert.rejects(stack.baton.client.workflow.getHandle(`acme:g-bad-${run}`).describe(), WorkflowNotFoundError);
    // A graph's key given to delegate: refused, not joined (the caller would get a graph for a delegation).
    const crossed = await callerRun<{ result?: unknown; error?: Told }>(callers, 'callOnce', [
      endpoint,
      'delegate',
      { agent: 'supplier-qa', text: FULL, idempotencyKey: `g-${run}` },
    ]);
    assert.equal(typeOf(crossed.error), 'BAD_REQUEST', JSON.stringify(crossed));
    assert.match(messageOf(crossed.error), /idempotencyKey names a graph of your tenant, not a delegation/);
  });

  it('an application worker that embeds Baton (batonPlugin) serves the service on its own task queue', async () => {
    const shopQueue = `shop-${run}`;
    const shopEndpoint = `shop-baton-${run}`;
    const namespace = stack.baton.client.options.namespace;
    await ensureNexusEndpoint(connection, shopEndpoint, { namespace, taskQueue: shopQueue });
    const config = {
      agents: { 'supplier-qa': loopbackAgent(agent.url) },
      nexus: { endpoint: shopEndpoint, callers: [{ namespace: callers, tenant: 'acme', user: 'shop-app' }] },
    };
    const worker = await Worker.create({
      connection: native,
      namespace,
      taskQueue: shopQueue,
      workflowsPath: require.resolve('../workflows/embedding'),
      activities: {},
      shutdownGraceTime: '2s',
      plugins: [batonPlugin({ config, logger: pino({ level: 'warn' }) })],
    });
    await worker.runUntil(async () => {
      const record = await callerRun<DelegationRecord>(callers, 'delegateAndWait', [shopEndpoint, { agent: 'supplier-qa', text: FULL }]);
      assert.equal(record.outcome?.kind, 'ACCEPTED');
      assert.deepEqual([record.tenant, record.owner], ['acme', 'shop-app']);
      assert.equal((await stack.baton.client.workflow.getHandle(record.id).describe()).taskQueue, shopQueue);
      const graph = { nodes: [{ id: 'check', agent: 'supplier-qa', text: FULL }] };
      const ran = await callerRun<{ result?: GraphRecord; error?: Told }>(callers, 'callOnce', [shopEndpoint, 'runGraph', { graph }]);
      assert.equal(ran.result?.status, 'SETTLED', JSON.stringify(ran.error));
      assert.deepEqual(
        ran.result?.nodes.map((n) => [n.id, n.outcome]),
        [['check', 'ACCEPTED']],
      );
      assert.equal((await stack.baton.client.workflow.getHandle(ran.result?.id ?? '').describe()).taskQueue, shopQueue);
    });
  });

  it('bad input: the right handler error, one clear message, nothing started', async () => {
    const call = (namespace: string, operation: string, input: unknown) =>
      callerRun<{ result?: unknown; error?: Told }>(namespace, 'callOnce', [endpoint, operation, input]);
    const unknownAgent = await call(callers, 'delegate', { agent: 'no-such-agent', text: FULL, idempotencyKey: `bad-1-${run}` });
    assert.equal(typeOf(unknownAgent.error), 'BAD_REQUEST', JSON.stringify(unknownAgent));
    assert.match(messageOf(unknownAgent.error), /agent no-such-agent is not one this Baton delegates to/);
    const malformed = await call(callers, 'delegate', { agent: 'supplier-qa', idempotencyKey: `bad-2-${run}` });
    assert.equal(typeOf(malformed.error), 'BAD_REQUEST', JSON.stringify(malformed));
    assert.match(messageOf(malformed.error), /invalid delegate input: .*give text or parts/);
    for (const key of [`bad-1-${run}`, `bad-2-${run}`])
      await assert.rejects(stack.baton.client.workflow.getHandle(`acme:${key}`).describe(), WorkflowNotFoundError, 'nothing started');

    // A settled delegation's question is not pending any more.
    const settled = `acme:twice-${run}`;
    const late = await call(callers, 'answer', { delegation: settled, requestId: `${settled}/request-1`, text: 'late' });
    assert.equal(typeOf(late.error), 'CONFLICT', JSON.stringify(late));
    // Another tenant's delegation is reported exactly as an unknown one.
    const foreign = await call(others, 'status', { delegation: settled });
    const unknown = await call(others, 'status', { delegation: 'globex:no-such-delegation' });
    assert.equal(typeOf(foreign.error), 'NOT_FOUND', JSON.stringify(foreign));
    assert.equal(typeOf(unknown.error), 'NOT_FOUND');
    assert.equal(messageOf(foreign.error).replace(settled, 'ID'), messageOf(unknown.error).replace('globex:no-such-delegation', 'ID'));
    // A namespace no one mapped to a tenant may not call at all.
    const stranger = await call(strangers, 'status', { delegation: settled });
    assert.equal(typeOf(stranger.error), 'UNAUTHORIZED', JSON.stringify(stranger));
    assert.match(messageOf(stranger.error), new RegExp(`namespace "${strangers}" is not a Baton caller`));
  });

  it("one caller's waits are bounded by its streams: past them RESOURCE_EXHAUSTED, retried by the server", async () => {
    const id = await stack.baton.start({ agent: 'supplier-qa', parts: [{ text: PARTIAL }] });
    await stack.baton.until(id, (r) => r.pending !== null, 50);
    const handle = await callerClient(callers).workflow.start('twoWaits', {
      taskQueue,
      workflowId: `two-waits-${run}`,
      args: [endpoint, id],
      workflowExecutionTimeout: '2m',
    });
    // The server shows the refused attempt on the pending operation (no history event carries it).
    let refusal: string | undefined;
    while (!refusal) {
      const pending = (await handle.describe()).raw.pendingNexusOperations ?? [];
      refusal = pending.map((p) => p.lastAttemptFailure?.message ?? '').find((m) => m.length > 0);
      if (!refusal) await delay(100);
    }
    assert.match(refusal, /you hold 1 open streams or waiting requests already \(api\.limits\.streams\)/);
    // Both waits end (the second once the first let go of the stream), each with the record as it was.
    assert.deepEqual(await handle.result(), ['WAITING_INPUT', 'WAITING_INPUT']);
    await stack.baton.cancel(id, 'done with the test');
  });

  it('an endpoint of the configured name that targets another task queue: baton setup --nexus says so and changes nothing', async () => {
    const misdirected = `baton-wrong-${run}`;
    await connection.operatorService.createNexusEndpoint({
      spec: { name: misdirected, target: { worker: { namespace: callers, taskQueue: 'somewhere-else' } } },
    });
    const config = `${stack.config}.wrong.yaml`;
    writeFileSync(config, readFileSync(stack.config, 'utf8').replace(`endpoint: ${endpoint}`, `endpoint: ${misdirected}`));
    const setup = await runCli(['setup', '--nexus'], userEnv({ BATON_CONFIG: config }));
    saysOneLine(
      setup,
      1,
      new RegExp(
        `Nexus endpoint ${misdirected} targets namespace ${callers}, task queue somewhere-else, not this Baton's .*baton setup --nexus again`,
      ),
    );
  });
});
