/**
 * Refusal matrices: every case must be refused. SSRF (literal private, loopback, link-local,
 * metadata and reserved addresses in their IPv4, IPv6, mapped and numeric spellings; names that
 * resolve inside; redirects inside; DNS rebinding; downloads redirected off their hosts), forged push
 * calls and push floods, another tenant's calls on a delegation and a graph (refused exactly as for an
 * id that does not exist, so ids cannot be probed), and credential misdirection and echo.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { servedTaskId } from '../../src/served-tasks/task-id';
import pino from 'pino';
import { createGuardedFetch, FetchRefusedError } from '../../src/a2a/guarded-fetch';
import { findCause } from '../../src/a2a/cause';
import { pushToken } from '../../src/push/token';
import { startWebhook } from '../../src/push/webhook';
import { GraphClient } from '../../src/client/graph-client';
import { startAgentServer } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { imageStudio } from '../../src/demo/trip-agents';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsArtifactStore } from '../../src/artifacts/store';
import { downloadUrlPart } from '../../src/artifacts/url-download';
import { DownloadPolicySchema } from '../../src/config/schema';
import { answerSignal, authorizeSignal, authorizeUpdate } from '../../workflows/messages';
import { echoGate } from '../helpers/echo-gate';
import { RawAgent } from '../helpers/raw-agent';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { closeServer } from '../../src/runtime/listen';
import { fakeLookup } from '../helpers/lookup';
import { batonFor, historyText, loopbackAgent, withWorker } from '../helpers/temporal';

export interface MatrixReport {
  matrix: string;
  cases: number;
  refused: number;
  /** Cases that went through, by name (must be empty). */
  let_through: string[];
}

const INSIDE: string[] = [
  '10.0.0.1',
  '10.255.255.254',
  '172.16.0.1',
  '172.31.255.1',
  '192.168.0.1',
  '192.168.255.255',
  '100.64.0.1',
  '127.0.0.1',
  '127.1.2.3',
  '0.0.0.0',
  '169.254.0.1',
  '169.254.169.254',
  '169.254.170.2',
  '100.100.100.200',
  '224.0.0.1',
  '255.255.255.255',
  '[::1]',
  '[::]',
  '[fc00::1]',
  '[fd12:3456::1]',
  '[fe80::1]',
  '[fd00:ec2::254]',
  '[::ffff:10.0.0.1]',
  '[::ffff:127.0.0.1]',
  '[::ffff:169.254.169.254]',
  '[::ffff:a00:1]',
  '[64:ff9b::a00:1]',
  '[2002:a00:1::]',
  '[::127.0.0.1]',
  '[::7f00:1]',
  '[::a00:1]',
  '[::ffff:0:7f00:1]',
  '[2002:7f00:1::]',
  '[64:ff9b::7f00:1]',
  '[64:ff9b::a9fe:a9fe]',
  '[2001:0:4136:e378:8000:63bf:3fff:fdd2]',
  '2130706433',
  '0x7f000001',
  '0177.0.0.1',
  '017700000001',
  '10.1',
];

/** Names an attacker controls that resolve inside. */
const NAMES: Record<string, string> = {
  'inside.test': '10.1.2.3',
  'loop.test': '127.0.0.1',
  'meta.test': '169.254.169.254',
  'v6.test': '::1',
  'mixed.test': '8.8.8.8,10.0.0.9',
};

const lookup = fakeLookup((host) => NAMES[host]?.split(','));

async function refusedBy(fetchImpl: typeof fetch, url: string): Promise<boolean> {
  try {
    const res = await fetchImpl(url, { signal: AbortSignal.timeout(3_000) });
    void res.body?.cancel();
    return false;
  } catch (err) {
    return Boolean(findCause(err, FetchRefusedError));
  }
}

export async function ssrfMatrix(): Promise<MatrixReport> {
  const report: MatrixReport = { matrix: 'SSRF', cases: 0, refused: 0, let_through: [] };
  const strict = createGuardedFetch(
    { allowHttp: true, allowPrivateNetwork: false, maxResponseBytes: 1024, connectTimeoutMs: 2_000, readTimeoutMs: 2_000, maxRedirects: 3 },
    { lookup },
  );
  const check = async (name: string, fetchImpl: typeof fetch, url: string): Promise<void> => {
    report.cases += 1;
    if (await refusedBy(fetchImpl, url)) report.refused += 1;
    else report.let_through.push(name);
  };
  for (const host of INSIDE) await check(`literal ${host}`, strict, `http://${host}/x`);
  for (const host of Object.keys(NAMES)) await check(`name ${host}`, strict, `http://${host}/x`);
  // Redirects from a server we may reach (loopback allowed for this first hop) to places never allowed.
  const targets = [
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/',
    'http://169.254.0.1/',
    'http://meta.test/',
    'http://[::ffff:169.254.169.254]/',
    'http://0.0.0.0/',
  ];
  const server = createServer((req, res) => res.writeHead(302, { location: targets[Number(req.url?.slice(1))] ?? '/' }).end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const loopbackOk = createGuardedFetch(
    { allowHttp: true, allowPrivateNetwork: true, maxResponseBytes: 1024, connectTimeoutMs: 2_000, readTimeoutMs: 2_000, maxRedirects: 3 },
    { lookup },
  );
  try {
    for (const [i, target] of targets.entries()) await check(`redirect to ${target}`, loopbackOk, `http://127.0.0.1:${port}/${i}`);
  } finally {
    await closeServer(server);
  }
  await dnsRebinding(report);
  await downloadRedirects(report);
  return report;
}

/** A download from a listed host that redirects to a host the agent's downloads do not list, at an allowed address. */
async function downloadRedirects(report: MatrixReport): Promise<void> {
  const server = createServer((req, res) =>
    req.url === '/file' ? res.end('content') : res.writeHead(302, { location: `http://elsewhere.test:${port}/file` }).end(),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const both = fakeLookup(() => ['127.0.0.1']);
  const policy = DownloadPolicySchema.parse({ allowedHosts: ['files.test'], allowHttp: true, allowPrivateNetwork: true, timeoutMs: 2_000 });
  report.cases += 1;
  try {
    const got = await downloadUrlPart(
      { url: `http://files.test:${port}/start` },
      policy,
      new FsArtifactStore(mkdtempSync(join(tmpdir(), 'baton-matrix-'))),
      {
        lookup: both,
      },
    );
    if (!got.ok && got.reason === 'host-not-allowed') report.refused += 1;
    else report.let_through.push('download redirected to an unlisted host');
  } finally {
    await closeServer(server);
  }
}

/**
 * DNS rebinding: a name that answers a public address first and loopback after it. Every connection's
 * own lookup is checked, so the second answer is refused and the server inside is never reached.
 */
async function dnsRebinding(report: MatrixReport): Promise<void> {
  let answers = 0;
  let hits = 0;
  const inside = createServer((_req, res) => {
    hits += 1;
    res.end('{}');
  });
  await new Promise<void>((r) => inside.listen(0, '127.0.0.1', r));
  const port = (inside.address() as { port: number }).port;
  const rebinding = fakeLookup((host) => {
    if (host !== 'rebind.test') return undefined;
    answers += 1;
    return [answers === 1 ? '8.8.8.8' : '127.0.0.1'];
  });
  const guarded = createGuardedFetch(
    { allowHttp: true, allowPrivateNetwork: false, maxResponseBytes: 1024, connectTimeoutMs: 500, readTimeoutMs: 500, maxRedirects: 0 },
    { lookup: rebinding },
  );
  const url = `http://rebind.test:${port}/x`;
  report.cases += 1;
  try {
    // The public answer: tried (unreachable from here), never mistaken for the inside server.
    await refusedBy(guarded, url);
    const second = await refusedBy(guarded, url);
    if (second && hits === 0 && answers >= 2) report.refused += 1;
    else report.let_through.push(`DNS rebinding (refused the loopback answer: ${second}, requests inside: ${hits})`);
  } finally {
    await closeServer(inside);
  }
}

export async function forgedPushMatrix(): Promise<MatrixReport> {
  const secret = 'matrix-secret';
  const delivered: string[] = [];
  const webhook = await startWebhook({
    secret,
    logger: pino({ level: 'silent' }),
    deliver: async (d, t) => void delivered.push(`${d}|${t}`),
  });
  const report: MatrixReport = { matrix: 'forged push calls', cases: 0, refused: 0, let_through: [] };
  const id = 'dlg-matrix';
  const task = 'task-1';
  const body = JSON.stringify({ statusUpdate: { taskId: task, contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } });
  const good = pushToken(secret, id, task);
  const post = (path: string, b: string, headers: Record<string, string>) =>
    fetch(`${webhook.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/a2a+json', ...headers }, body: b });
  try {
    // One genuine push first, so the replay below is a replay.
    await post(`/push/${id}`, body, { authorization: `Bearer ${good}` });
    const before = delivered.length;
    const cases: [string, string, string, Record<string, string>][] = [
      ['no token', `/push/${id}`, body, {}],
      ['empty bearer', `/push/${id}`, body, { authorization: 'Bearer ' }],
      ['forged token', `/push/${id}`, body, { authorization: 'Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
      ['token of another task', `/push/${id}`, body, { authorization: `Bearer ${pushToken(secret, id, 'task-2')}` }],
      ['token of another delegation', `/push/${id}`, body, { authorization: `Bearer ${pushToken(secret, 'dlg-other', task)}` }],
      ['token under another secret', `/push/${id}`, body, { authorization: `Bearer ${pushToken('other-secret', id, task)}` }],
      ['genuine token, other delegation in the path', '/push/dlg-other', body, { authorization: `Bearer ${good}` }],
      ['genuine token, body names another task', `/push/${id}`, body.replace(task, 'task-2'), { authorization: `Bearer ${good}` }],
      ['token with a suffix', `/push/${id}`, body, { authorization: `Bearer ${good}x` }],
      ['token truncated', `/push/${id}`, body, { authorization: `Bearer ${good.slice(0, -1)}` }],
      ['legacy header, forged', `/push/${id}`, body, { 'x-a2a-notification-token': 'forged' }],
      ['not JSON', `/push/${id}`, '{"statusUpdate":', { authorization: `Bearer ${good}` }],
      ['no task in the body', `/push/${id}`, JSON.stringify({ hello: 'world' }), { authorization: `Bearer ${good}` }],
      [
        'oversize body',
        `/push/${id}`,
        JSON.stringify({ statusUpdate: { taskId: task, pad: 'x'.repeat(2 * 1024 * 1024) } }),
        { authorization: `Bearer ${good}` },
      ],
      ['replay of the genuine push', `/push/${id}`, body, { authorization: `Bearer ${good}` }],
    ];
    for (const [name, path, b, headers] of cases) {
      report.cases += 1;
      const was = delivered.length;
      const res = await post(path, b, headers);
      await res.text();
      if (delivered.length === was && (res.status >= 400 || name.startsWith('replay'))) report.refused += 1;
      else report.let_through.push(name);
    }
    if (delivered.length !== before) report.let_through.push(`${delivered.length - before} delivered`);
    // A flood of genuine, distinct pushes for one delegation: past its allowance, 429 and nothing passed on.
    report.cases += 1;
    const flood = await Promise.all(
      Array.from({ length: 40 }, async (_, n) => {
        const res = await post(`/push/${id}`, body.replace('"c"', `"c-${n}"`), { authorization: `Bearer ${good}` });
        await res.text();
        return res.status;
      }),
    );
    const passed = flood.filter((s) => s === 202).length;
    if (flood.includes(429) && passed <= 30) report.refused += 1;
    else report.let_through.push(`push flood (${passed} of 40 passed on)`);
  } finally {
    await webhook.close();
  }
  return report;
}

/** Another tenant's calls on a waiting delegation and a running graph: every one refused, nothing changed. */
export async function crossTenantMatrix(): Promise<MatrixReport> {
  const qa = await startAgentServer(supplierQa({ workMs: 50 }));
  const studio = await startAgentServer(imageStudio({ workMs: 20_000 }));
  const report: MatrixReport = { matrix: 'cross-tenant calls', cases: 0, refused: 0, let_through: [] };
  try {
    await withWorker({ 'supplier-qa': loopbackAgent(qa.url), 'image-studio': loopbackAgent(studio.url) }, async (ctx) => {
      const owner = batonFor(ctx, 'acme', 'ops-1');
      const stranger = batonFor(ctx, 'globex', 'mallory');
      const graphsOf = (tenant: string, user: string) =>
        new GraphClient(ctx.client.connection, {
          namespace: ctx.client.options.namespace,
          taskQueue: ctx.taskQueue,
          caller: { tenant, user },
        });
      const id = await owner.start({ agent: 'supplier-qa', parts: [{ text: 'Verify inspection-92 against order A1042' }] });
      const waiting = await owner.until(id, (r) => r.status === 'WAITING_INPUT', 20);
      const requestId = waiting.pending?.requestId ?? '';
      const graphId = await graphsOf('acme', 'ops-1').start({
        nodes: [{ id: 'sailboat', agent: 'image-studio', text: 'Draw a sailboat' }],
      });
      await graphsOf('acme', 'ops-1').until(graphId, (g) => g.nodes[0]?.status === 'RUNNING', 20);
      const foreignGraphs = graphsOf('globex', 'mallory');
      // Each call on the owner's ids, and on ids that do not exist: the stranger must not tell them apart.
      const real = { id, requestId, graphId, node: `${graphId}/sailboat` };
      const missing = {
        id: 'dlg-no-such-one',
        requestId: 'dlg-no-such-one/request-1',
        graphId: 'graph-no-such-one',
        node: 'graph-no-such-one/sailboat',
      };
      type Ids = typeof real;
      const cases: [string, (t: Ids) => Promise<unknown>][] = [
        ['show', (t) => stranger.show(t.id)],
        ['result', (t) => stranger.result(t.id)],
        ['answer', (t) => stranger.answer(t.id, t.requestId, [{ text: 'SN-666' }])],
        ['authorize', (t) => stranger.authorize(t.id, t.requestId, 'push')],
        ['review', (t) => stranger.review(t.id, t.requestId, 'accept')],
        ['cancel', (t) => stranger.cancel(t.id, 'mine now')],
        ['graph show', (t) => foreignGraphs.show(t.graphId)],
        ['graph addFollowUp', (t) => foreignGraphs.addFollowUp(t.graphId, { id: 'x', agent: 'image-studio', text: 'paint it black' })],
        ['graph cancel', (t) => foreignGraphs.cancel(t.graphId)],
        ['show of the graph node', (t) => stranger.show(t.node)],
        ['cancel of the graph node', (t) => stranger.cancel(t.node)],
      ];
      /** What the stranger learns from a call: its error's class and message, with the id it named taken out. */
      const seen = async (call: (t: Ids) => Promise<unknown>, t: Ids): Promise<string> => {
        try {
          await call(t);
          return 'went through';
        } catch (err) {
          const said = `${(err as Error).name}: ${(err as Error).message}`;
          return [t.node, t.requestId, t.graphId, t.id].reduce((text, v) => text.split(v).join('<id>'), said);
        }
      };
      for (const [name, call] of cases) {
        report.cases += 1;
        const onReal = await seen(call, real);
        const onMissing = await seen(call, missing);
        if (onReal !== 'went through' && onReal === onMissing) report.refused += 1;
        else report.let_through.push(`${name} (${onReal} / for a missing id: ${onMissing})`);
      }
      // A Signal cannot be refused before history: it must be recorded as refused, changing nothing.
      report.cases += 1;
      await ctx.client.workflow
        .getHandle(id)
        .signal(answerSignal, { requestId, parts: [{ text: 'SN-666' }], caller: { tenant: 'globex', user: 'mallory' } });
      const after = await owner.until(id, (r) => r.refusedSignals.length > 0, 20);
      if (after.refusedSignals[0]?.reason.includes('no access') && after.status === 'WAITING_INPUT' && after.turns.length === 1)
        report.refused += 1;
      else report.let_through.push('answer signal');
      // Remote ids under Baton's credential: the stranger cannot attach its work to the owner's remote
      // task or conversation at the agent they share; the owner can continue its own.
      const { taskId: theirTask, contextId: theirContext } = waiting.remote;
      const parts = [{ text: 'Verify inspection-93 against order A1042' }];
      for (const [name, call] of [
        [
          "referencing the owner's remote task",
          () => stranger.start({ agent: 'supplier-qa', parts, referenceTaskIds: [theirTask as string] }),
        ],
        [
          "in the owner's remote context, referencing its task",
          () => stranger.start({ agent: 'supplier-qa', parts, contextId: theirContext, referenceTaskIds: [theirTask as string] }),
        ],
        ["in the owner's remote context", () => stranger.start({ agent: 'supplier-qa', parts, contextId: theirContext })],
      ] as const) {
        report.cases += 1;
        try {
          await call();
          report.let_through.push(name);
        } catch {
          report.refused += 1;
        }
      }
      const continued = await owner
        .start({ agent: 'supplier-qa', parts, contextId: theirContext, referenceTaskIds: [theirTask as string] })
        .catch((err: Error) => `refused: ${err.message}`);
      if (continued.startsWith('refused')) report.let_through.push(`the owner could not continue its own context (${continued})`);
      else await owner.cancel(continued, 'matrix done');
      const graph = await graphsOf('acme', 'ops-1').show(graphId);
      if (graph.status !== 'RUNNING' || graph.nodes.length !== 1) report.let_through.push('the graph changed');
      await graphsOf('acme', 'ops-1').cancel(graphId, 'matrix done');
      await owner.cancel(id, 'matrix done');
    });
  } finally {
    await qa.close();
    await studio.close();
  }
  return report;
}

/**
 * A hostile agent, through a scripted one over real HTTP: what it chooses cannot go unbounded into
 * history or search attributes (over-long ids are its protocol error: ERROR, never a terminated
 * workflow), cannot make Baton send a turn twice (data nested without end), cannot slip bytes past
 * the inline caps in part metadata, and cannot get a configured secret kept in clear, however deep
 * it hides it or however large the artifact that carries it.
 */
export async function hostileAgentMatrix(): Promise<MatrixReport> {
  const report: MatrixReport = { matrix: 'hostile agent', cases: 0, refused: 0, let_through: [] };
  const secret = `matrix-${process.pid}-agent-token-${randomUUID()}`;
  process.env.BATON_MATRIX_AGENT_TOKEN = secret;
  const agent = await new RawAgent().start();
  const artifactsPath = mkdtempSync(join(tmpdir(), 'baton-hostile-'));
  const deep = (levels: number, leaf: unknown): unknown => {
    let v = leaf;
    for (let i = 0; i < levels; i++) v = { a: v };
    return v;
  };
  const task = (over: { id?: string; contextId?: string; artifacts?: unknown[] } = {}) => ({
    id: over.id ?? `task-${randomUUID()}`,
    contextId: over.contextId ?? 'ctx-1',
    status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-12-04T10:00:00.000Z' },
    ...(over.artifacts ? { artifacts: over.artifacts } : {}),
  });
  const big = `${'x'.repeat(200 * 1024)} ${secret} ${'y'.repeat(1024)}`;
  const cases: [string, unknown, (r: DelegationRecord, events: number[], history: string, sends: number) => string | undefined][] = [
    [
      'a task id of 4,136 bytes',
      task({ id: 'T'.repeat(4136) }),
      (r, _e, _h, sends) =>
        r.outcome?.kind === 'ERROR' && /longer than 512/.test(r.outcome.reasons.join()) && sends === 1 ? undefined : 'kept',
    ],
    [
      'a contextId of 3,000 characters',
      task({ contextId: 'C'.repeat(3000) }),
      (r) => (r.outcome?.kind === 'ERROR' && /longer than 512/.test(r.outcome.reasons.join()) ? undefined : 'kept'),
    ],
    [
      'an artifactId of 2,000 characters',
      task({ artifacts: [{ artifactId: 'A'.repeat(2000), parts: [{ text: 'ok' }] }] }),
      (r) => (r.outcome?.kind === 'ERROR' ? undefined : 'kept'),
    ],
    [
      'a status messageId of 1,000 characters',
      {
        ...task(),
        status: {
          state: 'TASK_STATE_COMPLETED',
          message: { messageId: 'M'.repeat(1000), role: 'ROLE_AGENT', parts: [{ text: 'done' }] },
        },
      },
      (r) => (r.outcome?.kind === 'ERROR' ? undefined : 'kept'),
    ],
    [
      'an artifact name of 5,000 characters',
      task({ artifacts: [{ artifactId: 'a', name: 'N'.repeat(5000), parts: [{ text: 'ok' }] }] }),
      (r) => (r.outcome?.kind === 'ERROR' ? undefined : 'kept'),
    ],
    [
      'a media type of 1,000 characters',
      task({ artifacts: [{ artifactId: 'a', parts: [{ text: 'ok', mediaType: `text/${'p'.repeat(995)}` }] }] }),
      (r) => (r.outcome?.kind === 'ERROR' ? undefined : 'kept'),
    ],
    [
      'data nested 20,000 levels',
      // As text: no JSON.stringify (this process's included) can write it.
      {
        json: JSON.stringify(task({ artifacts: [{ artifactId: 'a', parts: [{ data: 0 }] }] })).replace(
          '"data":0',
          `"data":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`,
        ),
      },
      (r, _e, _h, sends) =>
        r.outcome?.kind === 'ERROR' && /nests deeper than 128 levels/.test(r.outcome.reasons.join()) && sends === 1
          ? undefined
          : `${r.outcome?.kind}: ${r.outcome?.reasons.join()}, ${sends} sends`,
    ],
    [
      'a 2-byte part with 1.5 MiB of metadata',
      task({ artifacts: [{ artifactId: 'a', parts: [{ text: 'ok', metadata: { pad: 'm'.repeat(1536 * 1024) } }] }] }),
      (r, events) =>
        r.artifacts[0]?.parts === undefined && Math.max(...events) < 256 * 1024 ? undefined : `largest event ${Math.max(...events)} bytes`,
    ],
    [
      'its own token echoed 80 levels deep',
      task({ artifacts: [{ artifactId: 'a', parts: [{ data: deep(80, { echo: secret }) }] }] }),
      (r, _e, history) =>
        r.outcome?.kind === 'ACCEPTED' && !JSON.stringify(r).includes(secret) && !history.includes(secret) ? undefined : 'kept in clear',
    ],
    [
      'its own token in an artifact stored by reference',
      task({ artifacts: [{ artifactId: 'a', parts: [{ text: big }] }] }),
      (r) => {
        const a = r.artifacts[0];
        if (!a?.ref || !a.redacted) return `not stored, or not marked (${JSON.stringify({ ref: a?.ref, redacted: a?.redacted })})`;
        const bytes = readFileSync(join(artifactsPath, 'sha256', a.sha256.slice(0, 2), a.sha256), 'utf8');
        return bytes.includes(secret) || !bytes.includes('[redacted') ? 'kept in the store' : undefined;
      },
    ],
  ];
  try {
    const entry = loopbackAgent(agent.url, {
      auth: { header: 'Authorization', scheme: 'Bearer', fromEnv: 'BATON_MATRIX_AGENT_TOKEN' },
      acceptance: 'accept-any',
    });
    await withWorker(
      { hostile: entry },
      async (ctx) => {
        const baton = batonFor(ctx, `hostile-${randomUUID().slice(0, 6)}`, 'ops-1');
        for (const [name, answer, judge] of cases) {
          report.cases += 1;
          let sends = 0;
          agent.rpc = (r) => {
            if (r.method === 'SendMessage') sends += 1;
            const json = (answer as { json?: string }).json;
            if (json === undefined) return RawAgent.result(r, r.method === 'SendMessage' ? { task: answer } : answer);
            const result = r.method === 'SendMessage' ? `{"task":${json}}` : json;
            return { body: `{"jsonrpc":"2.0","id":${JSON.stringify(r.id)},"result":${result}}` };
          };
          try {
            const id = await baton.start({ agent: 'hostile', parts: [{ text: name }] });
            const record = await baton.result(id);
            const history = await ctx.client.workflow.getHandle(id).fetchHistory();
            const events = (history.events ?? []).map((e) => JSON.stringify(e).length);
            const describe = await ctx.client.workflow.getHandle(id).describe();
            const why =
              describe.status.name !== 'COMPLETED'
                ? `the workflow ${describe.status.name}`
                : judge(record, events, await historyText(ctx.client, id), sends);
            if (why) report.let_through.push(`${name} (${why})`);
            else report.refused += 1;
          } catch (err) {
            report.let_through.push(`${name} (${(err as Error).message.slice(0, 200)})`);
          }
        }
      },
      { artifactsPath },
    );
  } finally {
    await agent.close();
    delete process.env.BATON_MATRIX_AGENT_TOKEN;
  }
  return report;
}

/**
 * Ids: tenants never share an id space, and none can claim an id Baton makes. Another tenant's start
 * with an id a tenant uses gets an id of its own (no "exists already" that would tell it the id is
 * taken); ids with Baton's prefixes (a served task's, a push workflow's, a generated one) are refused;
 * a served task's id cannot be computed without the server's key.
 */
export async function idSpaceMatrix(): Promise<MatrixReport> {
  const qa = await startAgentServer(supplierQa({ workMs: 50 }));
  const report: MatrixReport = { matrix: 'id space', cases: 0, refused: 0, let_through: [] };
  try {
    await withWorker({ 'supplier-qa': loopbackAgent(qa.url) }, async (ctx) => {
      // Tenants of this run alone: other tests list what 'acme' and 'globex' have on the shared server.
      const [A, B] = [`acme-${randomUUID().slice(0, 6)}`, `globex-${randomUUID().slice(0, 6)}`];
      const owner = batonFor(ctx, A, 'ops-1');
      const stranger = batonFor(ctx, B, 'mallory');
      const graphsOf = (tenant: string, user: string) =>
        new GraphClient(ctx.client.connection, {
          namespace: ctx.client.options.namespace,
          taskQueue: ctx.taskQueue,
          caller: { tenant, user },
        });
      const parts = [{ text: 'Verify inspection-92 against order A1042' }];
      const chosen = `order-${randomUUID().slice(0, 8)}`;
      const ownersId = await owner.start({ agent: 'supplier-qa', id: chosen, parts });
      const graphId = await graphsOf(A, 'ops-1').start({
        id: `plan-${chosen}`,
        nodes: [{ id: 'a', agent: 'supplier-qa', text: 'Verify' }],
      });
      // What a stranger could compute of the owner's next served task: the old, unkeyed derivation.
      const unkeyed = `a2a-supplier-check-${createHash('sha256').update(`4:task14:supplier-check${A.length}:${A}5:ops-13:m-1`).digest('hex').slice(0, 32)}`;
      const keyed = servedTaskId(
        Buffer.from('the server key nobody else has, 32+ chars'),
        'supplier-check',
        { tenant: A, user: 'ops-1' },
        'm-1',
      );
      const cases: [string, () => Promise<string>][] = [
        ["a delegation with the owner's chosen id", () => stranger.start({ agent: 'supplier-qa', id: chosen, parts })],
        ["a delegation with the owner's whole id", () => stranger.start({ agent: 'supplier-qa', id: ownersId, parts })],
        [
          "a graph with the owner's chosen id",
          () => graphsOf(B, 'mallory').start({ id: `plan-${chosen}`, nodes: [{ id: 'a', agent: 'supplier-qa', text: 'x' }] }),
        ],
        [
          "a graph with the owner's whole id",
          () => graphsOf(B, 'mallory').start({ id: graphId, nodes: [{ id: 'a', agent: 'supplier-qa', text: 'x' }] }),
        ],
        ["the owner's next served task id, unkeyed", () => stranger.start({ agent: 'supplier-qa', id: unkeyed, parts })],
        ["the owner's next served task id, keyed", () => stranger.start({ agent: 'supplier-qa', id: keyed, parts })],
        ["a served task's push workflow", () => stranger.start({ agent: 'supplier-qa', id: `${keyed}.push`, parts })],
        ["an id in the owner's tenant", () => stranger.start({ agent: 'supplier-qa', id: `${A}:${chosen}-next`, parts })],
        ["a delegation named as the owner's graph node", () => stranger.start({ agent: 'supplier-qa', id: `${graphId}/a`, parts })],
        ['a generated delegation id', () => stranger.start({ agent: 'supplier-qa', id: `dlg-${randomUUID()}`, parts })],
        [
          'a generated graph id',
          () => graphsOf(B, 'mallory').start({ id: `graph-${randomUUID()}`, nodes: [{ id: 'a', agent: 'supplier-qa', text: 'x' }] }),
        ],
      ];
      const theirs = new Set([ownersId, graphId, unkeyed, keyed, `${keyed}.push`, `${A}:${chosen}-next`, `${graphId}/a`]);
      for (const [name, call] of cases) {
        report.cases += 1;
        try {
          const id = await call();
          // Started, but in the stranger's own space: nothing of the owner's was named or taken.
          if (id.startsWith(`${B}:`) && !theirs.has(id)) report.refused += 1;
          else report.let_through.push(`${name} (started ${id})`);
        } catch (err) {
          const message = (err as Error).message;
          if (/exists already/.test(message)) report.let_through.push(`${name} (told: ${message})`);
          else report.refused += 1;
        }
      }
      // The owner's own delegation is still its own, untouched.
      const still = await owner.show(ownersId);
      if (still.tenant !== A || still.turns.length !== 1) report.let_through.push("the owner's delegation changed");
    });
  } finally {
    await qa.close();
  }
  return report;
}

/**
 * Credentials cannot be misdirected, and echoed ones stay out of history: every way of naming a
 * worker variable, or a credential the agent's entry does not allow (for this tenant), is refused with
 * nothing sent; a credential the agent echoes back is not in history.
 */
export async function credentialMatrix(): Promise<MatrixReport> {
  const secret = `matrix-${process.pid}-credential`;
  const push = `matrix-${process.pid}-push-secret`;
  process.env.BATON_MATRIX_ERP = secret;
  process.env.BATON_MATRIX_PUSH = push;
  const gate = echoGate();
  const agent = await startAgentServer(gate.definition);
  const report: MatrixReport = { matrix: 'credential misdirection and echo', cases: 0, refused: 0, let_through: [] };
  try {
    const entry = loopbackAgent(agent.url, {
      credentials: { erp: { fromEnv: 'BATON_MATRIX_ERP' }, 'globex-only': { fromEnv: 'BATON_MATRIX_PUSH', tenants: ['globex'] } },
      acceptance: 'accept-any',
    });
    await withWorker({ 'echo-gate': entry }, async (ctx) => {
      const baton = batonFor(ctx, 'acme', 'ops-1');
      const id = await baton.start({ agent: 'echo-gate', parts: [{ text: 'stock?' }] });
      const requestId = (await baton.until(id, (r) => r.pending !== null, 20)).pending?.requestId ?? '';
      const handle = ctx.client.workflow.getHandle(id);
      const caller = { tenant: 'acme', user: 'ops-1' };
      const variables = ['BATON_MATRIX_PUSH', 'BATON_MATRIX_ERP', 'PATH', 'HOME', 'BATON_PUSH_SECRET'];
      const cases: [string, () => Promise<unknown>][] = [
        ...variables.map((v): [string, () => Promise<unknown>] => [
          `Update naming variable ${v}`,
          () => handle.executeUpdate(authorizeUpdate, { args: [{ requestId, secretRef: { fromEnv: v }, caller } as never] }),
        ]),
        ...variables.map((v): [string, () => Promise<unknown>] => [`client naming ${v}`, () => baton.authorize(id, requestId, v)]),
        ['client naming a credential of another tenant', () => baton.authorize(id, requestId, 'globex-only')],
        [
          'Update naming a credential of another tenant',
          () => handle.executeUpdate(authorizeUpdate, { args: [{ requestId, credential: 'globex-only', caller }] }),
        ],
        ['client naming an unknown credential', () => baton.authorize(id, requestId, 'payroll')],
      ];
      for (const [name, call] of cases) {
        report.cases += 1;
        try {
          await call();
          report.let_through.push(name);
        } catch {
          if (gate.received.length === 0) report.refused += 1;
          else report.let_through.push(`${name} (the agent received ${gate.received.length})`);
        }
      }
      // By Signal (another workflow): recorded as refused, nothing sent.
      for (const v of variables) {
        report.cases += 1;
        await handle.signal(authorizeSignal, { requestId, secretRef: { fromEnv: v }, caller } as never);
      }
      const after = await baton.until(id, (r) => r.refusedSignals.length >= variables.length, 20);
      const refusedSignals = after.refusedSignals.filter((r) => r.signal === 'authorize').length;
      report.refused += Math.min(refusedSignals, variables.length);
      if (refusedSignals < variables.length || gate.received.length)
        report.let_through.push(`authorize signals (${refusedSignals} of ${variables.length} refused)`);

      // The allowed one goes out; the agent echoes it in its status and artifact; history keeps neither.
      await baton.authorize(id, requestId, 'erp');
      const record = await baton.result(id);
      report.cases += 2;
      const history = await historyText(ctx.client, id);
      if (gate.received.join() === secret && record.outcome?.kind === 'ACCEPTED' && !history.includes(secret)) report.refused += 1;
      else report.let_through.push('the echoed credential is in history');
      if (!history.includes(Buffer.from(secret).toString('base64'))) report.refused += 1;
      else report.let_through.push('the echoed credential is in history, base64');
    });
  } finally {
    await agent.close();
    delete process.env.BATON_MATRIX_ERP;
    delete process.env.BATON_MATRIX_PUSH;
  }
  return report;
}
