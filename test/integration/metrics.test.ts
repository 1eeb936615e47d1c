/**
 * Metrics with real parts: `baton worker` (its own process) exports on its metrics address, Debian's
 * Prometheus scrapes it every second, and the series are read back through Prometheus's HTTP API
 * while a delegation to supplier-qa asks its question, is answered and settles. Every query of the
 * Grafana dashboard in deploy/ is run against the same Prometheus.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { projectRoot } from '../../src/runtime/project-root';
import { startPrometheus, type RunningPrometheus } from '../../infra/prometheus';
import { freePort } from '../../src/runtime/free-port';
import { CliProcess, runCli, saysOneLine, userEnv } from '../../infra/cli-process';
import { testServer } from '../helpers/temporal';
import { eventually } from '../helpers/traces';
import { workerProcesses, type WorkerProcesses } from '../helpers/worker-process';

/** `promtool check metrics` on what an endpoint serves: its output, or why it failed (with that output). */
async function promtoolCheck(address: string): Promise<string> {
  const text = await (await fetch(`http://${address}/metrics`)).text();
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  assert.equal(run.status, 0, `promtool check metrics on ${address}:\n${run.stdout}${run.stderr}`);
  return `${run.stdout}${run.stderr}`;
}

interface Panel {
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

describe('metrics', () => {
  it('a metrics address in use: one line naming the setting, before anything starts', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as AddressInfo).port;
    try {
      const config = join(mkdtempSync(join(tmpdir(), 'baton-metrics-busy-')), 'baton.config.yaml');
      writeFileSync(config, `temporal: { address: "127.0.0.1:1" }\ntelemetry: { metrics: { worker: "127.0.0.1:${port}" } }\n`);
      saysOneLine(
        await runCli(['worker'], userEnv({ BATON_CONFIG: config })),
        1,
        new RegExp(
          `^baton: telemetry\\.metrics\\.worker: the metrics endpoint cannot listen on 127\\.0\\.0\\.1:${port} \\(Address already in use.*\\): choose another address$`,
        ),
      );
    } finally {
      busy.close();
    }
  });

  let agent: RunningAgent;
  let prometheus: RunningPrometheus | undefined;
  let processes: WorkerProcesses;
  let worker: CliProcess | undefined;
  let address: string;
  before(async () => {
    agent = await startAgentServer(supplierQa({ workMs: 20 }));
    address = `127.0.0.1:${await freePort()}`;
    processes = await workerProcesses(
      // A second entry whose card is not there: its calls fail, and the errors are counted.
      // And one that refuses connections (nothing listens on its port): its calls are RetryLater.
      { 'supplier-qa': agent.url, 'gone-qa': `${agent.url}/missing/agent-card.json`, 'down-qa': `http://127.0.0.1:${await freePort()}` },
      `metrics-${randomUUID()}`,
      ['telemetry:', '  metrics:', `    worker: "${address}"`, '    pendingEvery: 1s'],
      // The inbox gauge counts the whole namespace: other tests' waiting delegations are not this one's.
      { ownNamespace: true },
    );
  });
  after(async () => {
    worker?.child.kill('SIGTERM');
    if (worker) await worker.exited;
    await prometheus?.stop();
    await processes?.close();
    await agent?.close();
  });

  it('baton ui and baton webhook serve their own: API requests by route, pushes taken and refused', { timeout: 120_000 }, async () => {
    const { address: temporal } = await testServer();
    const [uiMetrics, webhookMetrics, webhookPort] = [await freePort(), await freePort(), await freePort()];
    const dir = mkdtempSync(join(tmpdir(), 'baton-metrics-processes-'));
    const config = join(dir, 'baton.config.yaml');
    writeFileSync(
      config,
      [
        `temporal: { address: "${temporal}" }`,
        'api: { callers: [{ tokenFromEnv: METRICS_UI_TOKEN, tenant: acme, user: ops-1 }] }',
        `push: { url: "http://127.0.0.1:${webhookPort}", secretFromEnv: METRICS_PUSH_SECRET, listen: { host: 127.0.0.1, port: ${webhookPort} } }`,
        `telemetry: { metrics: { ui: "127.0.0.1:${uiMetrics}", webhook: "127.0.0.1:${webhookMetrics}" } }`,
      ].join('\n'),
    );
    const env = userEnv({
      BATON_CONFIG: config,
      METRICS_UI_TOKEN: 'metrics-ui-token-0123456789',
      METRICS_PUSH_SECRET: 'metrics-push-secret-0123456789',
    });
    const ui = new CliProcess(['ui', '--port', '0'], env);
    const webhook = new CliProcess(['webhook'], env);
    const prom = await startPrometheus(mkdtempSync(join(tmpdir(), 'baton-prometheus-')), [
      `127.0.0.1:${uiMetrics}`,
      `127.0.0.1:${webhookMetrics}`,
    ]);
    try {
      await ui.waitFor('Baton web app and API at');
      await webhook.waitFor('Webhook listening at', 'stderr');
      const url = /at (http:\/\/\S+)/.exec(ui.stdout)?.[1] ?? '';
      for (let i = 0; i < 3; i++)
        assert.equal(
          (await fetch(`${url}/api/v1/whoami`, { headers: { Authorization: 'Bearer metrics-ui-token-0123456789' } })).status,
          200,
        );
      assert.equal(
        (await fetch(`${url}/api/v1/delegations/dlg-nobody`, { headers: { Authorization: 'Bearer metrics-ui-token-0123456789' } })).status,
        404,
      );
      // Two pushes the webhook refuses: one that names no task, one with a forged token.
      const push = (body: unknown, token?: string) =>
        fetch(`http://127.0.0.1:${webhookPort}/push/dlg-metrics`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(body),
        });
      assert.equal((await push({})).status, 400);
      assert.equal((await push({ task: { id: 't-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } }, 'forged')).status, 401);

      const value = async (expr: string): Promise<number | undefined> => {
        const [first] = await prom.query(expr);
        return first ? Number(first.value[1]) : undefined;
      };
      await eventually(
        () => value('sum(baton_api_request_duration_seconds_count{route="GET /whoami",status="200"})'),
        (v) => v === 3,
        'three whoami requests',
      );
      // By route pattern, never by path: an id does not make a series of its own.
      await eventually(
        () => value('sum(baton_api_request_duration_seconds_count{route="GET /delegations/:id",status="404"})'),
        (v) => v === 1,
        'the 404 by its route',
      );
      assert.equal((await prom.query('baton_api_request_duration_seconds_count{route=~".*dlg-nobody.*"}')).length, 0);
      await eventually(
        () => value('sum(baton_push_received_total{result="refused"})'),
        (v) => v === 2,
        'two refused pushes',
      );
      // Each endpoint passes Prometheus's own checker.
      for (const endpoint of [`127.0.0.1:${uiMetrics}`, `127.0.0.1:${webhookMetrics}`]) await promtoolCheck(endpoint);
    } finally {
      ui.child.kill('SIGTERM');
      webhook.child.kill('SIGTERM');
      await Promise.all([ui.exited, webhook.exited]);
      await prom.stop();
    }
  });

  it("Prometheus scrapes a worker: Baton's series and the SDK's, and the dashboard's queries", { timeout: 150_000 }, async () => {
    worker = await processes.start();
    prometheus = await startPrometheus(mkdtempSync(join(tmpdir(), 'baton-prometheus-')), [address]);
    const prom = prometheus;
    const value = async (expr: string): Promise<number | undefined> => {
      const [first] = await prom.query(expr);
      return first ? Number(first.value[1]) : undefined;
    };
    const reaches = (expr: string, want: (v: number | undefined) => boolean, what: string) =>
      eventually(() => value(expr), want, what, 60_000);

    await eventually(
      () => prom.targets(),
      (ts) => ts.length === 1 && ts[0]?.health === 'up',
      'the worker scraped',
    );

    // A delegation that asks: the inbox gauge counts it while it waits, and not after the answer.
    const { baton } = processes;
    const id = await baton.start({ agent: 'supplier-qa', parts: [{ text: 'Please verify inspection-92 against order A1042.' }] });
    const asked = await baton.until(id, (r) => r.pending !== null);
    assert.equal(asked.pending?.kind, 'input');
    await reaches('sum(baton_pending_requests{kind="input"})', (v) => v === 1, 'one request waiting for input');
    await baton.answer(id, asked.pending.requestId, [{ text: 'SN-4471' }]);
    assert.equal((await baton.result(id)).outcome?.kind, 'ACCEPTED');
    await reaches('sum(baton_pending_requests{kind="input"})', (v) => v === 0, 'the inbox empty again');

    const failed = await baton.start({ agent: 'gone-qa', parts: [{ text: 'Please verify inspection-93.' }] });
    const failedOutcome = (await baton.result(failed)).outcome?.kind;

    await reaches('sum(baton_delegations_started_total{agent="supplier-qa"})', (v) => v === 1, 'one delegation started');
    await reaches('sum(baton_delegations_settled_total{agent="supplier-qa",outcome="ACCEPTED"})', (v) => v === 1, 'one settled ACCEPTED');
    await reaches(
      `sum(baton_delegations_settled_total{agent="gone-qa",outcome="${failedOutcome}"})`,
      (v) => v === 1,
      'the failed one settled',
    );
    // Two sends (the request, the answer) and the reads, each a latency sample by agent, binding and method.
    await reaches(
      'sum(baton_remote_call_duration_seconds_count{agent="supplier-qa",binding="JSONRPC",method="SendMessage"})',
      (v) => v === 2,
      'two sends',
    );
    await reaches(
      'sum(baton_remote_call_duration_seconds_count{agent="supplier-qa",method="GetAgentCard"})',
      (v) => (v ?? 0) >= 1,
      'the card read',
    );
    await reaches(
      'sum(baton_remote_call_errors_total{agent="gone-qa",method="GetAgentCard"})',
      (v) => (v ?? 0) >= 1,
      'the missing card counted as an error',
    );
    // An agent that is down: the label the docs give for it.
    const down = await baton.start({ agent: 'down-qa', parts: [{ text: 'Please verify inspection-94.' }] });
    await reaches(
      'sum(baton_remote_call_errors_total{agent="down-qa",method="GetAgentCard",error="RetryLater"})',
      (v) => (v ?? 0) >= 1,
      'the refused connection counted as RetryLater',
    );
    await baton.cancel(down, 'the test is done with it');
    assert.equal(
      await value('sum(baton_remote_call_errors_total{agent="supplier-qa"})'),
      undefined,
      'no error for the agent that answered',
    );
    // Labels in snake_case, as Temporal's own series have them, so the two join (the workflow meter
    // would have added taskQueue and workflowType).
    const started = await prom.query('baton_delegations_started_total{agent="supplier-qa"}');
    assert.deepEqual(
      Object.keys(started[0]?.metric ?? {})
        .filter((l) => !['__name__', 'instance', 'job'].includes(l))
        .sort(),
      ['agent', 'namespace', 'task_queue', 'workflow_type'],
    );
    assert.equal(started[0]?.metric.workflow_type, 'delegationWorkflow');
    await reaches(
      'sum(baton_delegations_started_total * on (namespace, task_queue) group_left() (0 * max by (namespace, task_queue) (temporal_workflow_completed_total)))',
      (v) => v === 0,
      "the counter joins with Temporal's series on namespace and task_queue",
    );
    await promtoolCheck(address);

    // The SDK's own: slots, and the workflow tasks it ran.
    assert.ok(((await value('sum(temporal_worker_task_slots_available)')) ?? 0) > 0, 'the worker slots are there');
    assert.ok(((await value('sum(temporal_workflow_completed_total)')) ?? 0) >= 2, 'the completed workflows are counted');

    const families = (await prom.query('count by (__name__) ({job="baton"})')).map((s) => s.metric.__name__ ?? '').sort();
    process.stderr.write(`metric families scraped from the worker (${families.length}):\n${families.join('\n')}\n`);

    // The dashboard: every query is one Prometheus accepts, and the ones that draw what this run did have data.
    const dashboard = JSON.parse(readFileSync(join(projectRoot(), 'deploy', 'grafana', 'dashboards', 'baton.json'), 'utf8')) as {
      panels: Panel[];
    };
    const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]).filter((p) => p.targets?.length);
    assert.ok(panels.length >= 6, 'the dashboard has its panels');
    const empty: string[] = [];
    for (const panel of panels)
      for (const { expr } of panel.targets ?? []) {
        // Rates over the dashboard's own window: with a second's scrape interval a short one sees this run.
        const result = await prom.query(expr.replaceAll('$__rate_interval', '1m'));
        if (!result.length) empty.push(`${panel.title}: ${expr}`);
      }
    if (empty.length) process.stderr.write(`dashboard queries with no data in this run:\n${empty.join('\n')}\n`);
    const mustDraw = [
      'Delegations settled by outcome',
      'Remote call latency by agent (p50, p99)',
      'Requests waiting for a person',
      'Worker slots available',
    ];
    assert.deepEqual(
      empty.filter((e) => mustDraw.some((t) => e.startsWith(`${t}:`))),
      [],
      'the panels this run fed have data',
    );
  });
});
