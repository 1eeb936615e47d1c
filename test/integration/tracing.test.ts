/**
 * Traces with real parts: spans exported over OTLP to Jaeger (built from the Go module proxy by
 * setup) and read back through its query API. The supplier-qa demo (`baton demo`, its own process)
 * is one trace from the caller's span to the agent's; a Baton-served agent continues its caller's
 * trace. No span carries the request's text or the person's answer.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Message } from '@a2a-js/sdk';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import pino from 'pino';
import { withBaton } from '../../src/embed/with-baton';
import { installTemporalRuntime } from '../../src/runtime/logger';
import { delegateAndWait } from '../workflows/embedding';
import { DEMO_ANSWER } from '../../src/cli/commands/demo';
import { ConfigSchema, ServeSchema } from '../../src/config/schema';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { startJaeger, type RunningJaeger } from '../../infra/jaeger';
import { startTracing } from '../../src/telemetry/tracing';
import { runCli, userEnv } from '../../infra/cli-process';
import { serveForTest, SUPPLIER_CHECK } from '../helpers/served';
import { batonFor, loopbackAgent, testBundle, testServer, withWorker } from '../helpers/temporal';
import { eventually, traceById, tracesOf, type ReadTrace } from '../helpers/traces';
import { stateOf, Webhook } from '../helpers/webhook';

describe('traces', () => {
  let jaeger: RunningJaeger;
  before(async () => {
    jaeger = await startJaeger(mkdtempSync(join(tmpdir(), 'baton-jaeger-')));
  });
  after(async () => {
    await jaeger?.stop();
  });

  it('the supplier-qa demo is one trace, from the caller to the agent', { timeout: 120_000 }, async () => {
    const { address } = await testServer();
    const dir = mkdtempSync(join(tmpdir(), 'baton-trace-demo-'));
    const config = join(dir, 'baton.config.yaml');
    writeFileSync(
      config,
      [
        `temporal: { address: "${address}", taskQueue: "trace-demo-${randomUUID()}" }`,
        `telemetry: { traces: { endpoint: "${jaeger.otlpEndpoint}" } }`,
      ].join('\n'),
    );
    const run = await runCli(['demo', '--json'], userEnv({ BATON_CONFIG: config, BATON_LOG_LEVEL: 'warn' }), dir);
    assert.equal(run.code, 0, run.stderr);
    const record = JSON.parse(run.stdout) as { id: string; outcome: { kind: string }; remote: { taskId: string } };
    assert.equal(record.outcome.kind, 'ACCEPTED');

    // Spans arrive in batches from two exporters (the demo's and the agent's): wait for the last ones.
    const [trace] = (await eventually(
      () => tracesOf(jaeger.queryUrl, 'baton-demo'),
      (ts) =>
        ts.some(
          (t) =>
            t.named('baton demo').length === 1 &&
            t.named('RunActivity:awaitRemoteTask').length > 0 &&
            t.named('supplier-qa GetTask').length >= 2,
        ),
      'the demo trace',
    ).then((ts) => ts.filter((t) => t.named('baton demo').length === 1))) as [ReadTrace];
    process.stderr.write(`the supplier-qa demo's trace ${trace.traceId}:\n${trace.listing()}\n`);

    const root = trace.one('baton demo');
    const start = trace.one('StartWorkflow:delegationWorkflow');
    assert.equal(trace.parentOf(start)?.spanId, root.spanId, 'the client start is a child of the caller span');
    const workflow = trace.one('RunWorkflow:delegationWorkflow');
    assert.equal(trace.parentOf(workflow)?.spanId, start.spanId, 'the workflow continues the start');
    assert.deepEqual(
      [
        workflow.attributes['baton.delegation_id'],
        workflow.attributes['baton.agent'],
        workflow.attributes['baton.outcome'],
        workflow.attributes['a2a.task_id'],
      ],
      [record.id, 'supplier-qa', 'ACCEPTED', record.remote.taskId],
    );
    // Every A2A call is a client span under the workflow, and the agent's span is its child: the agent
    // received the traceparent of that very call.
    const sends = trace.named('A2A SendMessage', 'baton-demo');
    assert.equal(sends.length, 2, 'the first message and the answer');
    for (const send of sends) {
      assert.ok(trace.isUnder(send, workflow), 'the send is under the workflow');
      assert.equal(trace.parentOf(send)?.name.startsWith('RunActivity:'), true);
      assert.deepEqual(
        [send.attributes['baton.agent'], send.attributes['a2a.binding'], send.attributes['a2a.task_id']],
        ['supplier-qa', 'JSONRPC', record.remote.taskId],
      );
      assert.equal(send.attributes['baton.delegation_id'], record.id);
      const agentSide = trace.spans.filter((s) => s.service === 'supplier-qa' && s.parentId === send.spanId);
      assert.deepEqual(
        agentSide.map((s) => s.name),
        ['supplier-qa SendMessage'],
      );
    }
    assert.ok(trace.one('HandleUpdate:answer').parentId, 'the answer is in the same trace');
    assert.equal(trace.parentOf(trace.one('A2A GetAgentCard'))?.name, 'RunActivity:resolveAndSendHere', 'the first send resolves');

    // Names and ids only: neither the request nor the person's answer is in any span.
    const values = JSON.stringify(trace.spans.map((s) => s.attributes));
    assert.ok(!values.includes(DEMO_ANSWER) && !values.includes('inspection-92'), values);

    // The history a tracing worker wrote replays without tracing (a fleet can switch it off).
    const connection = await Connection.connect({ address });
    try {
      const history = await new Client({ connection }).workflow.getHandle(record.id).fetchHistory();
      await Worker.runReplayHistory({ workflowBundle: await testBundle(), replayName: 'traced-demo' }, history, record.id);
    } finally {
      await connection.close();
    }
  });

  it("a Baton-served agent continues its caller's trace", { timeout: 120_000 }, async () => {
    const tracing = startTracing({ traces: { endpoint: jaeger.otlpEndpoint, serviceName: 'baton-served' } }, 'test');
    assert.ok(tracing);
    let agent: RunningAgent | undefined;
    const hook = new Webhook();
    const push = { allowHttp: true, allowPrivateNetwork: true, attempts: 3, retryInitial: '200ms', retryMax: '1s' };
    try {
      await hook.start();
      agent = await startAgentServer(supplierQa({ workMs: 10 }));
      const agents = { 'supplier-qa': loopbackAgent(agent.url) };
      await withWorker(
        agents,
        async (ctx) => {
          const config = ConfigSchema.parse({
            serve: {
              pollMs: 50,
              push,
              grpc: { listen: { host: '127.0.0.1', port: 0 } },
              services: { 'supplier-check': SUPPLIER_CHECK },
            },
          });
          const token = randomBytes(16).toString('hex');
          const served = await serveForTest(ctx, { ...config, agents }, { acme: token, globex: randomBytes(16).toString('hex') });
          try {
            for (const binding of ['JSONRPC', 'GRPC'] as const) {
              const client = await served.connect('supplier-check', binding);
              // The caller's own trace: its span id is the parent the served agent must name.
              const traceId = randomBytes(16).toString('hex');
              const callerSpan = randomBytes(8).toString('hex');
              const sent = await client.sendMessage(
                {
                  tenant: '',
                  message: Message.fromJSON({
                    messageId: `m-${randomUUID()}`,
                    role: 'ROLE_USER',
                    parts: [{ text: 'Verify inspection-92 against order A1042, product SN-4471' }],
                  }),
                  configuration: {
                    acceptedOutputModes: [],
                    returnImmediately: false,
                    historyLength: 0,
                    // Over JSON-RPC with a webhook: its push workflow (update-with-start) is traced too.
                    taskPushNotificationConfig:
                      binding === 'JSONRPC'
                        ? { tenant: '', id: '', taskId: '', url: `${hook.url}/traced`, token: '', authentication: undefined }
                        : undefined,
                  },
                  metadata: undefined,
                },
                { serviceParameters: { Authorization: `Bearer ${token}`, traceparent: `00-${traceId}-${callerSpan}-01` } },
              );
              assert.equal((sent as { status?: { state: number } }).status?.state, 3 /* TASK_STATE_COMPLETED */, binding);
              if (binding === 'JSONRPC') {
                await hook.until('/traced', (posts) => posts.some((p) => stateOf(p) === 'TASK_STATE_COMPLETED'), 'the end');
                // Histories a tracing worker wrote, the push workflow's included, replay without tracing.
                const taskId = (sent as { id: string }).id;
                for (const workflowId of [taskId, `${taskId}.push`]) {
                  const history = await ctx.client.workflow.getHandle(workflowId).fetchHistory();
                  await Worker.runReplayHistory({ workflowBundle: await testBundle(), replayName: 'traced-served' }, history, workflowId);
                }
              }
              await tracing.flush();
              const trace = await eventually(
                () => traceById(jaeger.queryUrl, traceId),
                // The server span ends when its response has gone out, which can be after the caller has it.
                (t) =>
                  !!t &&
                  t.named('supplier-qa SendMessage').length > 0 &&
                  t.named('RunWorkflow:delegationWorkflow').length > 0 &&
                  t.named('A2A server SendMessage').length > 0,
                `the served trace over ${binding}`,
              );
              assert.ok(trace);
              const server = trace.one('A2A server SendMessage', 'baton-served');
              assert.equal(server.parentId, callerSpan, `${binding}: the served agent's span is the caller's span's child`);
              const workflow = trace.one('RunWorkflow:delegationWorkflow');
              assert.ok(trace.isUnder(workflow, server), `${binding}: the task's delegation runs under the served request`);
              const call = trace
                .named('A2A SendMessage', 'baton-served')
                .find((s) => s.attributes['a2a.binding'] === 'JSONRPC' && s.attributes['baton.agent'] === 'supplier-qa');
              assert.ok(call && trace.isUnder(call, workflow), `${binding}: its call to supplier-qa is under it`);
            }

            // The HTTP API as the caller's hop: the delegation it starts joins the caller's trace.
            const traceId = randomBytes(16).toString('hex');
            const callerSpan = randomBytes(8).toString('hex');
            const started = await fetch(`${served.api.url}/api/v1/delegations`, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${token}`,
                'content-type': 'application/json',
                traceparent: `00-${traceId}-${callerSpan}-01`,
              },
              body: JSON.stringify({ agent: 'supplier-qa', text: 'Verify inspection-92 against order A1042, product SN-4471' }),
            });
            assert.equal(started.status, 201);
            const { id } = (await started.json()) as { id: string };
            await batonFor(ctx).result(id);
            await tracing.flush();
            const trace = await eventually(
              () => traceById(jaeger.queryUrl, traceId),
              (t) => !!t && t.named('supplier-qa SendMessage').length > 0 && t.named('API POST /delegations').length > 0,
              'the API trace',
            );
            assert.ok(trace);
            const api = trace.one('API POST /delegations', 'baton-served');
            assert.equal(api.parentId, callerSpan, "the API's span is the caller's span's child");
            const workflow = trace.one('RunWorkflow:delegationWorkflow');
            assert.ok(trace.isUnder(workflow, api), 'the delegation runs under the API request');
            assert.equal(workflow.attributes['baton.delegation_id'], id);
          } finally {
            await served.close();
          }
        },
        { traced: true, serve: ServeSchema.parse({ push, services: {} }) },
      );
    } finally {
      await agent?.close();
      await hook.close();
      await tracing.shutdown();
    }
  });

  it(
    "a parent workflow's delegation is in the parent's trace (withBaton, the application's own span processor)",
    { timeout: 120_000 },
    async () => {
      // The application's OpenTelemetry SDK: its provider registered, its processor handed to withBaton.
      const spans = new InMemorySpanExporter();
      const spanProcessor = new SimpleSpanProcessor(spans);
      const provider = new NodeTracerProvider({ spanProcessors: [spanProcessor] });
      provider.register({ propagator: new W3CTraceContextPropagator() });
      installTemporalRuntime(pino({ level: 'warn' }, pino.destination(2)));
      const agent = await startAgentServer(supplierQa({ workMs: 10 }));
      const { address, namespace } = await testServer();
      const native = await NativeConnection.connect({ address });
      const connection = await Connection.connect({ address });
      try {
        const taskQueue = `shop-traced-${randomUUID()}`;
        const options = await withBaton(
          { connection: native, namespace, taskQueue, workflowsPath: require.resolve('../workflows/embedding'), activities: {} },
          {
            config: { agents: { 'supplier-qa': loopbackAgent(agent.url) } },
            logger: pino({ level: 'warn' }),
            tracing: { spanProcessor, resource: new Resource({ 'service.name': 'shop' }) },
          },
        );
        const worker = await Worker.create({ ...options, shutdownGraceTime: '2s' });
        const result = await worker.runUntil(
          new Client({ connection, namespace }).workflow.execute(delegateAndWait, {
            taskQueue,
            workflowId: `refund-${randomUUID()}`,
            args: [
              {
                parts: [{ text: 'Verify inspection-92 against order A1042, product SN-4471' }],
                caller: { tenant: 'shop', user: 'refund-desk' },
              },
            ],
          }),
        );
        assert.equal(result.accepted, true);
        const finished = spans.getFinishedSpans();
        const named = (name: string) => finished.filter((sp) => sp.name === name);
        const byId = new Map(finished.map((sp) => [sp.spanContext().spanId, sp]));
        const under = (child: (typeof finished)[number], ancestor: (typeof finished)[number]): boolean => {
          for (let p = byId.get(child.parentSpanId ?? ''); p; p = byId.get(p.parentSpanId ?? '')) if (p === ancestor) return true;
          return false;
        };
        const [parent] = named('RunWorkflow:delegateAndWait');
        const [child] = named('RunWorkflow:delegationWorkflow');
        assert.ok(parent && child, finished.map((sp) => sp.name).join(', '));
        assert.ok(under(child, parent), 'the delegation runs under its parent workflow (StartChildWorkflow)');
        assert.equal(byId.get(child.parentSpanId ?? '')?.name, 'StartChildWorkflow:delegationWorkflow');
        const send = named('A2A SendMessage')[0];
        assert.ok(send && under(send, child), 'the A2A call is under the delegation');
        assert.equal(new Set([parent, child, send].map((sp) => sp.spanContext().traceId)).size, 1, 'one trace');
      } finally {
        await connection.close();
        await native.close();
        await agent.close();
        await provider.shutdown();
      }
    },
  );
});
