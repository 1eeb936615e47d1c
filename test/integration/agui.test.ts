/**
 * AG-UI front ends on `baton ui` (a real process) with a real worker, Temporal and agents, through the
 * official `@ag-ui/client`: a delegation whose question ends a run with an interrupt and is answered
 * by resuming after `baton ui` restarted; a graph whose nodes are steps; a served task; an explicit
 * cancel and an abort that only stops watching; every bad input refused before the stream opens,
 * nothing changed. Every event the client received is checked with `@ag-ui/core`'s own schemas.
 * Headless Chromium runs the example front end (examples/agui-front-end), bundled from its source.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, copyFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HttpAgent, type BaseEvent, type Interrupt } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import { CliProcess, userEnv } from '../../infra/cli-process';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { portalGate } from '../../src/demo/auth-gate';
import { PolicyRegistry } from '../../src/acceptance/policies';
import { DeclaredPolicySchema } from '../../src/config/schema';
import { projectRoot } from '../../src/runtime/project-root';
import { freePort } from '../../src/runtime/free-port';
import { DelegationThread } from '../../src/agui/threads';
import { launchBrowser } from '../helpers/browser';
import { SUPPLIER_CHECK } from '../helpers/served';
import { batonFor, loopbackAgent, testServer, withWorker, type TestWorkerContext } from '../helpers/temporal';

const ACME = 'acme-agui-token-0123456789abcdef';
const GLOBEX = 'globex-agui-token-0123456789abcdef';
const VIEWER = 'viewer-agui-token-0123456789abcdef';
const ASK = 'Verify inspection-42 against order A1042';
const PORTAL_SECRET = `portal-agui-${process.pid}-s3cret`;

/** One run as the client received it: its events (each checked against @ag-ui/core's schema), and the interrupts it ended with. */
interface RunSeen {
  events: BaseEvent[];
  types: string[];
  interrupts: Interrupt[];
  outcome?: string;
}

async function runOnce(agent: HttpAgent, parameters: Parameters<HttpAgent['runAgent']>[0] = {}): Promise<RunSeen> {
  const seen: RunSeen = { events: [], types: [], interrupts: [] };
  await agent.runAgent(parameters, {
    onEvent: ({ event }) => {
      const checked = EventSchemas.safeParse(event);
      assert.ok(checked.success, `an event @ag-ui/core accepts: ${JSON.stringify(event)} ${checked.error?.message ?? ''}`);
      seen.events.push(event);
      seen.types.push(event.type);
    },
    onRunFinishedEvent: (finished) => {
      seen.outcome = finished.outcome;
      if (finished.outcome === 'interrupt') seen.interrupts = finished.interrupts;
    },
  });
  return seen;
}

/** A `baton ui` process for `config`, on `port`. */
async function startUi(configFile: string, port: number): Promise<{ ui: CliProcess; url: string }> {
  const ui = new CliProcess(
    ['ui', '--port', String(port)],
    userEnv({
      BATON_CONFIG: configFile,
      AGUI_TOKEN_ACME: ACME,
      AGUI_TOKEN_GLOBEX: GLOBEX,
      AGUI_TOKEN_VIEWER: VIEWER,
      BATON_SERVE_TASK_ID_KEY: 'agui-test-served-task-ids-key-0123456789',
    }),
  );
  await ui.waitFor('AG-UI at');
  return { ui, url: /Baton web app and API at (http:\/\/\S+)/.exec(ui.stdout)?.[1] ?? '' };
}

async function stopUi(ui: CliProcess): Promise<void> {
  ui.child.kill('SIGTERM');
  assert.deepEqual(await ui.exited, { code: 0, signal: null });
}

/** A loopback server for the example front end's files: the front end's own origin. */
async function serveFrontEnd(dir: string): Promise<{ origin: string; server: Server }> {
  const files: Record<string, [string, string]> = {
    '/': ['index.html', 'text/html; charset=utf-8'],
    '/page.js': ['page.js', 'text/javascript; charset=utf-8'],
  };
  const server = createServer((req, res) => {
    const file = files[(req.url ?? '/').split('?')[0] ?? '/'];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': file[1] }).end(readFileSync(join(dir, file[0])));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** The example front end bundled for a browser, from its source, with the official client. */
async function bundleFrontEnd(): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), 'baton-agui-page-'));
  const source = join(projectRoot(), 'examples', 'agui-front-end');
  copyFileSync(join(source, 'index.html'), join(out, 'index.html'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const webpack = require('webpack') as typeof import('webpack');
  await new Promise<void>((resolve, reject) =>
    webpack(
      {
        mode: 'production',
        entry: join(source, 'page.js'),
        output: { path: out, filename: 'page.js' },
        target: 'web',
        performance: { hints: false },
        resolve: { modules: [join(projectRoot(), 'node_modules')] },
      },
      (err, stats) => (err || stats?.hasErrors() ? reject(err ?? new Error(stats?.toString('errors-only'))) : resolve()),
    ),
  );
  return out;
}

describe('AG-UI', () => {
  const agents: RunningAgent[] = [];
  let frontEnd: { origin: string; server: Server };
  before(async () => {
    process.env.BATON_TEST_AGUI_PORTAL = PORTAL_SECRET;
    agents.push(
      await startAgentServer(supplierQa({ workMs: 30 })),
      await startAgentServer(supplierQa({ workMs: 4_000 })),
      await startAgentServer(portalGate(PORTAL_SECRET)),
    );
    frontEnd = await serveFrontEnd(await bundleFrontEnd());
  });
  after(async () => {
    for (const a of agents) await a.close();
    frontEnd.server.close();
  });

  const configFor = async (ctx: TestWorkerContext): Promise<string> => {
    const { address } = await testServer();
    const file = join(mkdtempSync(join(tmpdir(), 'baton-agui-')), 'baton.yaml');
    const config = {
      temporal: { address, namespace: ctx.client.options.namespace, taskQueue: ctx.taskQueue },
      agents: {
        'supplier-qa': { card: agents[0]?.cardUrl, allowHttp: true, allowPrivateNetwork: true },
        'slow-qa': { card: agents[1]?.cardUrl, allowHttp: true, allowPrivateNetwork: true },
        'portal-gate': { card: agents[2]?.cardUrl, allowHttp: true, allowPrivateNetwork: true },
        'reviewed-qa': { card: agents[0]?.cardUrl, allowHttp: true, allowPrivateNetwork: true },
      },
      api: {
        callers: [
          { tokenFromEnv: 'AGUI_TOKEN_ACME', tenant: 'acme', user: 'ops-1' },
          { tokenFromEnv: 'AGUI_TOKEN_GLOBEX', tenant: 'globex', user: 'mallory' },
          { tokenFromEnv: 'AGUI_TOKEN_VIEWER', tenant: 'acme', user: 'viewer', permissions: ['read'] },
        ],
        rateLimit: { requestsPerMinute: 6000, burst: 1000 },
        agui: { corsOrigins: [frontEnd.origin] },
      },
      serve: { services: { 'supplier-check': SUPPLIER_CHECK } },
    };
    // JSON is YAML.
    writeFileSync(file, JSON.stringify(config));
    return file;
  };

  const workerAgents = () => ({
    'supplier-qa': loopbackAgent(agents[0]?.cardUrl ?? ''),
    'slow-qa': loopbackAgent(agents[1]?.cardUrl ?? ''),
    'portal-gate': loopbackAgent(agents[2]?.cardUrl ?? '', { credentials: { portal: { fromEnv: 'BATON_TEST_AGUI_PORTAL' } } }),
    'reviewed-qa': loopbackAgent(agents[0]?.cardUrl ?? '', { acceptance: 'second-look' }),
  });
  const policies = () =>
    new PolicyRegistry().declareAll({ 'second-look': DeclaredPolicySchema.parse({ base: 'completed-with-artifact', review: true }) });

  it('a delegation: a question as an interrupt, answered after baton ui restarted; refusals; cancel and abort', async () => {
    await withWorker(
      workerAgents(),
      async (ctx) => {
        const configFile = await configFor(ctx);
        const port = await freePort();
        let { ui, url } = await startUi(configFile, port);
        try {
          const threadId = `agui-thread-${process.pid}-${Date.now()}`;
          const front = new HttpAgent({ url: `${url}/agui/agents/supplier-qa`, headers: { Authorization: `Bearer ${ACME}` }, threadId });
          front.addMessage({ id: 'ask-1', role: 'user', content: ASK });
          const first = await runOnce(front);
          assert.equal(first.types[0], 'RUN_STARTED');
          assert.equal(first.types[1], 'STATE_SNAPSHOT');
          assert.equal(first.outcome, 'interrupt');
          assert.equal(first.interrupts.length, 1);
          const [asked] = first.interrupts;
          assert.match(asked?.id ?? '', /^acme:agui-[0-9a-f]{32}\/request-1$/);
          assert.equal(asked?.reason, 'input_required');
          assert.match(asked?.message ?? '', /serial number/);
          assert.deepEqual(asked?.responseSchema?.required, ['text']);
          // The agent's question as an assistant message, marked as the agent's (untrusted) words.
          const start = first.events.find((e) => e.type === 'TEXT_MESSAGE_START') as { metadata?: unknown } | undefined;
          assert.deepEqual(start?.metadata, { baton: { untrusted: true, source: 'agent' } });
          assert.ok(front.messages.some((m) => m.role === 'assistant' && String(m.content).includes('serial number')));
          assert.equal((front.state as { status?: string }).status, 'WAITING_INPUT');
          const delegationId = asked?.id.replace(/\/request-1$/, '') ?? '';

          // baton ui restarts between the interrupt and the resume: the thread is in Temporal, not in memory.
          await stopUi(ui);
          ({ ui, url } = await startUi(configFile, port));

          // Refusals, each before a stream opens, each changing nothing.
          const post = async (path: string, body: unknown, token = ACME) => {
            const res = await fetch(`${url}/agui${path}`, {
              method: 'POST',
              headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
              body: JSON.stringify(body),
            });
            return { status: res.status, body: (await res.json()) as { error: { type: string; message: string } } };
          };
          const input = (extra: Record<string, unknown>) => ({ threadId, runId: `r-${Math.random()}`, messages: [], ...extra });
          const malformed = await post('/agents/supplier-qa', { threadId: 7, messages: 'no' });
          assert.equal(malformed.status, 400);
          assert.match(malformed.body.error.message, /^invalid RunAgentInput: threadId: .*; runId: .*; messages: /);
          const notJson = await fetch(`${url}/agui/agents/supplier-qa`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${ACME}`, 'Content-Type': 'application/json' },
            body: '{"threadId":',
          });
          assert.deepEqual([notJson.status, ((await notJson.json()) as { error: { type: string } }).error.type], [400, 'InvalidRequest']);
          const tooLarge = await post(
            '/agents/supplier-qa',
            input({ messages: [{ id: 'm', role: 'user', content: 'x'.repeat(1_100_000) }] }),
          );
          assert.deepEqual([tooLarge.status, tooLarge.body.error.type], [413, 'PayloadTooLarge']);
          // CORS: only the configured origin (the example front end's) gets the headers.
          const preflight = async (origin: string) =>
            (
              await fetch(`${url}/agui/agents/supplier-qa`, {
                method: 'OPTIONS',
                headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' },
              })
            ).headers.get('access-control-allow-origin');
          assert.equal(await preflight(frontEnd.origin), frontEnd.origin);
          assert.equal(await preflight('http://127.0.0.1:1'), null);
          const unknownAgent = await post('/agents/nobody', input({}));
          assert.deepEqual([unknownAgent.status, unknownAgent.body.error.type], [404, 'NotFound']);
          const unknownInterrupt = await post(
            '/agents/supplier-qa',
            input({ resume: [{ interruptId: `${delegationId}/request-9`, status: 'resolved', payload: 'SN-4471' }] }),
          );
          assert.equal(unknownInterrupt.status, 409);
          assert.match(
            unknownInterrupt.body.error.message,
            /request-9 is not pending: delegation .* is waiting_input; nothing was answered/,
          );
          const badPayload = await post(
            '/agents/supplier-qa',
            input({ resume: [{ interruptId: asked?.id, status: 'resolved', payload: { serial: 1 } }] }),
          );
          assert.equal(badPayload.status, 400);
          assert.match(badPayload.body.error.message, /the payload is not a text or \{"text": "\.\.\."\}/);
          // Another tenant: the same thread id is not acme's thread for globex, and acme's interrupt is not found.
          const foreignThread = await post('/agents/supplier-qa', input({}), GLOBEX);
          assert.equal(foreignThread.status, 400);
          assert.match(foreignThread.body.error.message, /has no work yet: send a user message with text to start it/);
          const foreignResume = await post(
            '/agents/supplier-qa',
            input({ resume: [{ interruptId: asked?.id, status: 'resolved', payload: 'SN-0000' }] }),
            GLOBEX,
          );
          assert.equal(foreignResume.status, 404);
          // A caller that may only read may not answer (nor start work), but may follow the thread.
          const readOnly = await post(
            '/agents/supplier-qa',
            input({ resume: [{ interruptId: asked?.id, status: 'resolved', payload: 'SN-4471' }] }),
            VIEWER,
          );
          assert.deepEqual([readOnly.status, readOnly.body.error.type], [403, 'Forbidden']);
          assert.match(readOnly.body.error.message, /may not answer here: its token does not grant "answer"/);
          const viewer = new HttpAgent({ url: `${url}/agui/agents/supplier-qa`, headers: { Authorization: `Bearer ${VIEWER}` }, threadId });
          assert.equal((await runOnce(viewer)).interrupts[0]?.id, asked?.id);
          const baton = batonFor(ctx);
          const still = await baton.show(delegationId);
          assert.equal(still.status, 'WAITING_INPUT', 'nothing changed');
          assert.equal(still.turns.length, 1);

          // The resume: the answer becomes the delegation's answer Update; the run follows it to the end.
          front.url = `${url}/agui/agents/supplier-qa`;
          const second = await runOnce(front, {
            resume: [{ interruptId: asked?.id ?? '', status: 'resolved', payload: { text: 'The serial number is SN-4471' } }],
          });
          assert.equal(second.outcome, 'success');
          assert.deepEqual([second.types[0], second.types[1], second.types.at(-1)], ['RUN_STARTED', 'STATE_SNAPSHOT', 'RUN_FINISHED']);
          const state = front.state as { status: string; outcome: { kind: string }; artifacts: { name?: string; agentText?: string }[] };
          assert.equal(state.status, 'SETTLED');
          assert.equal(state.outcome.kind, 'ACCEPTED');
          assert.equal(state.artifacts[0]?.name, 'verdict');
          assert.match(state.artifacts[0]?.agentText ?? '', /"verdict":"pass"/);
          const record = await baton.show(delegationId);
          assert.equal(record.outcome?.kind, 'ACCEPTED');
          assert.equal(record.turns[1]?.by, 'acme/ops-1');
          // Settled: resuming again is refused, nothing changes.
          const late = await post('/agents/supplier-qa', input({ resume: [{ interruptId: asked?.id, status: 'resolved', payload: 'x' }] }));
          assert.equal(late.status, 409);
          assert.match(late.body.error.message, /is not pending: delegation .* is settled \(ACCEPTED\)/);

          // A front end that reconnects (a new client on the thread) gets the work from the durable record.
          const again = new HttpAgent({ url: `${url}/agui/agents/supplier-qa`, headers: { Authorization: `Bearer ${ACME}` }, threadId });
          const replay = await runOnce(again);
          assert.deepEqual(replay.types.slice(0, 2), ['RUN_STARTED', 'STATE_SNAPSHOT']);
          assert.equal(replay.outcome, 'success');
          assert.equal(again.messages.filter((m) => m.role === 'assistant').length, 2, 'the question and the verdict');

          // An abort only stops watching: the delegation goes on, and a new run follows it to its end.
          const slowAgent = (thread: string) =>
            new HttpAgent({ url: `${url}/agui/agents/slow-qa`, headers: { Authorization: `Bearer ${ACME}` }, threadId: thread });
          const startAndAbort = async (thread: string): Promise<string> => {
            const slow = slowAgent(thread);
            slow.addMessage({ id: `${thread}-1`, role: 'user', content: `${ASK}, product SN-4471` });
            let seenState = false;
            await slow.runAgent(
              {},
              {
                onStateChanged: () => {
                  seenState = true;
                  slow.abortRun();
                },
              },
            );
            assert.ok(seenState, 'the run showed the state before it was aborted');
            return new DelegationThread(baton, 'slow-qa', thread).id;
          };
          const watched = `agui-watched-${process.pid}-${Date.now()}`;
          const watchedId = await startAndAbort(watched);
          const running = await baton.show(watchedId);
          assert.notEqual(running.status, 'SETTLED', 'an abort cancels nothing');
          assert.equal(running.cancel, undefined);
          const follower = slowAgent(watched);
          const followed = await runOnce(follower);
          assert.equal(followed.outcome, 'success');
          assert.ok(followed.types.includes('STATE_DELTA'), `the state changed as a delta: ${followed.types.join(' ')}`);
          assert.equal((follower.state as { outcome: { kind: string } }).outcome.kind, 'ACCEPTED', 'the deltas applied');

          // Cancelling is asked for explicitly, and the run shows the delegation cancelled.
          const dropped = `agui-dropped-${process.pid}-${Date.now()}`;
          const droppedId = await startAndAbort(dropped);
          const cancelRun = await runOnce(slowAgent(dropped), { forwardedProps: { baton: { cancel: { reason: 'no longer needed' } } } });
          assert.equal(cancelRun.outcome, 'cancelled');
          const cancelled = await baton.show(droppedId);
          assert.equal(cancelled.outcome?.kind, 'CANCELED');
          assert.equal(cancelled.cancel?.reason, 'no longer needed');
        } finally {
          await stopUi(ui);
        }
      },
      { policies: policies() },
    );
  });
  it('a graph with its nodes as steps, a served task, and the example front end in Chromium', async () => {
    await withWorker(
      workerAgents(),
      async (ctx) => {
        const { ui, url } = await startUi(await configFor(ctx), await freePort());
        const browser = await launchBrowser();
        try {
          const stamp = `${process.pid}-${Date.now()}`;
          // A graph: the first node asks a question (an interrupt naming its step), the second depends on it.
          const graph = new HttpAgent({ url: `${url}/agui/graphs`, headers: { Authorization: `Bearer ${ACME}` }, threadId: `g-${stamp}` });
          const spec = {
            nodes: [
              { id: 'inspect', agent: 'supplier-qa', text: ASK },
              {
                id: 'recheck',
                agent: 'supplier-qa',
                text: 'Verify inspection-93 against order A1042, product SN-4471',
                dependsOn: ['inspect'],
              },
            ],
          };
          const asked = await runOnce(graph, { forwardedProps: { baton: { graph: spec } } });
          assert.equal(asked.outcome, 'interrupt');
          assert.equal(asked.interrupts[0]?.metadata?.baton?.step, 'inspect');
          assert.ok(asked.types.includes('STEP_STARTED'));
          const answered = await runOnce(graph, {
            resume: [{ interruptId: asked.interrupts[0]?.id ?? '', status: 'resolved', payload: 'SN-4471' }],
          });
          assert.equal(answered.outcome, 'success');
          const steps = [...asked.events, ...answered.events]
            .filter((e) => e.type === 'STEP_STARTED' || e.type === 'STEP_FINISHED')
            .map((e) => `${e.type === 'STEP_STARTED' ? '+' : '-'}${(e as { stepName?: string }).stepName}`);
          assert.ok(steps.includes('+recheck') && steps.includes('-recheck'), `the second node ran as a step: ${steps.join(' ')}`);
          assert.ok(steps.indexOf('+recheck') > steps.lastIndexOf('+inspect'), 'in dependency order');
          const graphState = graph.state as { kind: string; status: string; nodes: { id: string; outcome?: string }[] };
          assert.deepEqual(
            [graphState.kind, graphState.status, graphState.nodes.map((n) => `${n.id}:${n.outcome}`)],
            ['graph', 'SETTLED', ['inspect:ACCEPTED', 'recheck:ACCEPTED']],
          );

          // A served task: the same task an A2A caller of supplier-check would have.
          const served = new HttpAgent({
            url: `${url}/agui/served/supplier-check`,
            headers: { Authorization: `Bearer ${ACME}` },
            threadId: `s-${stamp}`,
          });
          served.addMessage({ id: 'served-1', role: 'user', content: ASK });
          const servedAsked = await runOnce(served);
          assert.equal(servedAsked.outcome, 'interrupt');
          assert.match(servedAsked.interrupts[0]?.id ?? '', /^a2a-supplier-check-[0-9a-f]{32}\/request-1$/);
          const servedDone = await runOnce(served, {
            resume: [{ interruptId: servedAsked.interrupts[0]?.id ?? '', status: 'resolved', payload: { text: 'SN-4471' } }],
          });
          assert.equal(servedDone.outcome, 'success');
          assert.equal((served.state as { taskState: string }).taskState, 'TASK_STATE_COMPLETED');

          // The example front end, from its own origin, in headless Chromium: the question shown, the answer sent.
          const page = await browser.newPage();
          const thread = `page-${stamp}`;
          await page.goto(`${frontEnd.origin}/#baton=${encodeURIComponent(url)}&token=${ACME}&agent=supplier-qa&thread=${thread}`);
          await page.fill('#request', ASK);
          await page.click('#ask button');
          await page.waitForSelector('#interrupt:not([hidden])');
          assert.match((await page.textContent('#question')) ?? '', /serial number/);
          await page.fill('#answer-text', 'SN-4471');
          await page.click('#answer button');
          await page.waitForFunction("document.getElementById('outcome')?.textContent === 'ACCEPTED'");
          const id = new DelegationThread(batonFor(ctx), 'supplier-qa', thread).id;
          assert.equal((await batonFor(ctx).show(id)).outcome?.kind, 'ACCEPTED');
        } finally {
          await browser.close();
          await stopUi(ui);
        }
      },
      { policies: policies() },
    );
  });
  it("an agent's authentication request and Baton's own review, each answered through a resume", async () => {
    await withWorker(
      workerAgents(),
      async (ctx) => {
        const { ui, url } = await startUi(await configFor(ctx), await freePort());
        try {
          const stamp = `${process.pid}-${Date.now()}`;
          const front = (agent: string, thread: string) =>
            new HttpAgent({ url: `${url}/agui/agents/${agent}`, headers: { Authorization: `Bearer ${ACME}` }, threadId: thread });

          // auth-required: the interrupt names the credentials that may answer; the answer names one, never a secret.
          const portal = front('portal-gate', `auth-${stamp}`);
          portal.addMessage({ id: 'auth-1', role: 'user', content: 'Stock for BOLT-M8?' });
          const asked = await runOnce(portal);
          const auth = asked.interrupts[0];
          assert.equal(auth?.reason, 'auth_required');
          assert.deepEqual(auth?.responseSchema, {
            type: 'object',
            properties: { credential: { type: 'string', enum: ['portal'] } },
            required: ['credential'],
          });
          assert.deepEqual(auth?.metadata?.baton?.credentials, ['portal']);
          const authorized = await runOnce(portal, {
            resume: [{ interruptId: auth?.id ?? '', status: 'resolved', payload: { credential: 'portal' } }],
          });
          assert.equal(authorized.outcome, 'success');
          assert.doesNotMatch(JSON.stringify([asked.events, authorized.events]), new RegExp(PORTAL_SECRET));

          // Baton's own review of a result: its interrupt is Baton's (not the agent's) words; the decision settles it.
          const reviewed = front('reviewed-qa', `review-${stamp}`);
          reviewed.addMessage({ id: 'review-1', role: 'user', content: `${ASK}, product SN-4471` });
          const inReview = await runOnce(reviewed);
          const review = inReview.interrupts[0];
          assert.equal(review?.reason, 'review_required');
          assert.equal(review?.metadata?.baton?.untrusted, false);
          assert.deepEqual(review?.responseSchema?.required, ['decision']);
          const decided = await runOnce(reviewed, {
            resume: [{ interruptId: review?.id ?? '', status: 'resolved', payload: { decision: 'reject', reason: 'photos missing' } }],
          });
          assert.equal(decided.outcome, undefined, 'a rejected result is no success');
          const error = decided.events.at(-1) as { type: string; code?: string; message?: string };
          assert.deepEqual([error.type, error.code], ['RUN_ERROR', 'REJECTED']);
          assert.match(error.message ?? '', /photos missing/);
        } finally {
          await stopUi(ui);
        }
      },
      { policies: policies() },
    );
  });
});
