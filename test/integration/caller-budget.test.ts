/**
 * One budget per caller on every surface of `baton ui` (docs/resource-model.md): the HTTP API, the
 * served agents over JSON-RPC, HTTP+JSON and gRPC, MCP and the codec server share it; each says a
 * refusal its own way (429 and Retry-After, JSON-RPC's envelope, RESOURCE_EXHAUSTED); unknown tokens
 * are counted per source address; streams (AG-UI runs among them), MCP sessions and work started
 * are bounded per caller; and
 * with `api.limits.store.postgres`, two replicas share one budget.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import pino from 'pino';
import { BatonClient } from '../../src/client/baton-client';
import { InboxCache } from '../../src/client/inbox-cache';
import { ConfigSchema, loopbackAgentEntry, type BatonConfig } from '../../src/config/schema';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { startUi, type RunningUi } from '../../src/http/start-ui';
import { startPostgres, type RunningPostgres } from '../../infra/cluster/postgres';
import { freePort } from '../../src/runtime/free-port';
import { batonFor, testServer, withWorker, type TestWorkerContext } from '../helpers/temporal';
import { DelegationThread } from '../../src/agui/threads';

const env = (name: string): string => {
  process.env[name] = randomBytes(18).toString('base64url');
  return process.env[name] as string;
};
const ACME = env('BATON_BUDGET_TEST_ACME');
const GLOBEX = env('BATON_BUDGET_TEST_GLOBEX');
const CODEC = env('BATON_BUDGET_TEST_CODEC');
const INBOX = env('BATON_BUDGET_TEST_INBOX');
/** Tenants of this run alone: the test server is shared, and visibility queries are by tenant. */
const TENANT = `acme-${randomBytes(4).toString('hex')}`;
const INBOX_TENANT = `inbox-${randomBytes(4).toString('hex')}`;
const GLOBEX_TENANT = `globex-${randomBytes(4).toString('hex')}`;
process.env.BATON_BUDGET_TEST_KEY = randomBytes(32).toString('base64');

const quiet = pino({ level: 'silent' });

/** A config for `baton ui` with two callers, a served gateway (HTTP and gRPC), and `extra` over it. */
function configFor(address: string, taskQueue: string, agentUrl: string, extra: Record<string, unknown> = {}): BatonConfig {
  const { api, ...rest } = extra as { api?: Record<string, unknown> };
  return ConfigSchema.parse({
    temporal: { address, namespace: 'default', taskQueue },
    agents: { 'supplier-qa': loopbackAgentEntry(agentUrl) },
    api: {
      listen: { port: 0 },
      callers: [
        { tokenFromEnv: 'BATON_BUDGET_TEST_ACME', tenant: TENANT, user: 'ops-1' },
        { tokenFromEnv: 'BATON_BUDGET_TEST_INBOX', tenant: INBOX_TENANT, user: 'ops-1' },
        { tokenFromEnv: 'BATON_BUDGET_TEST_GLOBEX', tenant: GLOBEX_TENANT, user: 'ops-9' },
      ],
      ...api,
    },
    serve: {
      grpc: { listen: { port: 0 } },
      services: {
        'supplier-check': {
          description: 'supplier-qa behind Baton',
          skills: [{ id: 'verify', name: 'Verify', description: 'Verifies a report' }],
          delegate: { agent: 'supplier-qa' },
        },
      },
    },
    ...rest,
  }) as BatonConfig;
}

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function get(url: string, token: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers: { ...auth(token), 'A2A-Version': '1.0', ...headers } });
  const text = await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: text ? (JSON.parse(text) as unknown) : undefined };
}

async function post(url: string, token: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      ...auth(token),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'A2A-Version': '1.0',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // An SSE answer: kept as text.
  }
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: parsed, sessionId: res.headers.get('mcp-session-id') };
}

const jsonRpc = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 1, method, params });
const MCP_INIT = jsonRpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } });

/** A raw gRPC GetTask: the status code and the `retry-after` it came with. */
function grpcGetTask(address: string, token: string): Promise<{ code: number; retryAfter?: string; details: string }> {
  const Client = grpc.makeGenericClientConstructor(A2AService as unknown as grpc.ServiceDefinition, 'A2AService');
  const client = new Client(address, grpc.credentials.createInsecure()) as unknown as {
    getTask(req: unknown, md: grpc.Metadata, cb: (err: grpc.ServiceError | null) => void): grpc.ClientUnaryCall;
    close(): void;
  };
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${token}`);
  md.set('a2a-version', '1.0');
  return new Promise((resolve) => {
    client.getTask({ tenant: 'supplier-check', id: 'no-such-task' }, md, (err) => {
      client.close();
      const retry = err?.metadata?.get('retry-after')[0];
      resolve({ code: err?.code ?? grpc.status.OK, details: err?.details ?? '', ...(retry ? { retryAfter: String(retry) } : {}) });
    });
  });
}

describe('one budget per caller, on every surface', () => {
  let agent: RunningAgent;
  let address: string;
  before(async () => {
    agent = await startAgentServer(supplierQa({ workMs: 30 }));
    address = (await testServer()).address;
  });
  after(async () => {
    await agent.close();
  });

  const withUi = async (extra: Record<string, unknown>, fn: (ui: RunningUi, ctx: TestWorkerContext) => Promise<void>): Promise<void> =>
    withWorker({ 'supplier-qa': loopbackAgentEntry(agent.url) }, async (ctx) => {
      const ui = await startUi(configFor(address, ctx.taskQueue, agent.url, extra), address, quiet, { port: 0 });
      try {
        await fn(ui, ctx);
      } finally {
        await ui.close();
      }
    });

  it('is one bucket for the API, JSON-RPC, HTTP+JSON, gRPC and MCP, and each refuses past it in its own form', async () => {
    await withUi({ api: { rateLimit: { requestsPerMinute: 1, burst: 4 } } }, async (ui) => {
      const served = `${ui.url}/a2a/supplier-check`;
      assert.equal((await get(`${ui.url}/api/v1/whoami`, ACME)).status, 200);
      assert.equal((await post(`${served}/jsonrpc`, ACME, jsonRpc('GetTask', { id: 'no-such-task' }))).status, 200);
      assert.equal((await get(`${served}/rest/v1/tasks/no-such-task`, ACME)).status, 404);
      assert.equal((await grpcGetTask(ui.servedGrpc as string, ACME)).code, grpc.status.NOT_FOUND);

      const api = await get(`${ui.url}/api/v1/whoami`, ACME);
      assert.equal(api.status, 429);
      assert.ok(Number(api.retryAfter) >= 1);
      assert.equal((api.body as { error: { type: string } }).error.type, 'RateLimited');
      const rpc = await post(`${served}/jsonrpc`, ACME, jsonRpc('GetTask', { id: 'no-such-task' }));
      assert.equal(rpc.status, 429);
      assert.ok(Number(rpc.retryAfter) >= 1);
      const envelope = rpc.body as { jsonrpc: string; error: { code: number; message: string; data: { reason: string }[] } };
      assert.equal(envelope.jsonrpc, '2.0');
      assert.equal(envelope.error.code, -32000);
      assert.equal(envelope.error.data[0]?.reason, 'RESOURCE_EXHAUSTED');
      const rest = await get(`${served}/rest/v1/tasks/no-such-task`, ACME);
      assert.equal(rest.status, 429);
      assert.equal((rest.body as { error: { status: string } }).error.status, 'RESOURCE_EXHAUSTED');
      const viaGrpc = await grpcGetTask(ui.servedGrpc as string, ACME);
      assert.equal(viaGrpc.code, grpc.status.RESOURCE_EXHAUSTED);
      assert.ok(Number(viaGrpc.retryAfter) >= 1, `retry-after ${viaGrpc.retryAfter}`);
      const mcp = await post(`${ui.url}/mcp`, ACME, MCP_INIT);
      assert.equal(mcp.status, 429);
      assert.ok(Number(mcp.retryAfter) >= 1);
      const agui = await post(`${ui.url}/agui/agents/supplier-qa`, ACME, { threadId: 't', runId: 'r', messages: [] });
      assert.equal(agui.status, 429);

      // Another caller has a bucket of its own.
      assert.equal((await get(`${ui.url}/api/v1/whoami`, GLOBEX)).status, 200);
      assert.equal((await grpcGetTask(ui.servedGrpc as string, GLOBEX)).code, grpc.status.NOT_FOUND);
    });
  });

  it('counts unknown tokens per source address, on every surface, and then refuses that address before reading its token', async () => {
    await withUi({ api: { limits: { unknownTokens: { perMinute: 1, burst: 4 } }, trustProxy: 1 } }, async (ui) => {
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      const served = `${ui.url}/a2a/supplier-check`;
      const wrong = 'not-a-token-anyone-was-given';
      assert.equal((await get(`${ui.url}/api/v1/whoami`, wrong, from('10.9.0.1'))).status, 401);
      assert.equal((await post(`${served}/jsonrpc`, wrong, jsonRpc('GetTask', { id: 'x' }), from('10.9.0.1'))).status, 401);
      assert.equal((await post(`${ui.url}/mcp`, wrong, MCP_INIT, from('10.9.0.1'))).status, 401);
      assert.equal((await get(`${served}/rest/v1/tasks/x`, wrong, from('10.9.0.1'))).status, 401);
      const refused = await get(`${ui.url}/api/v1/whoami`, wrong, from('10.9.0.1'));
      assert.equal(refused.status, 429);
      assert.match(
        (refused.body as { error: { message: string } }).error.message,
        /too many requests with an unknown token from your address/,
      );
      // Refused before the token is read: a right guess from there learns nothing either.
      assert.equal((await get(`${ui.url}/api/v1/whoami`, ACME, from('10.9.0.1'))).status, 429);
      assert.equal((await post(`${served}/jsonrpc`, ACME, jsonRpc('GetTask', { id: 'x' }), from('10.9.0.1'))).status, 429);
      // Another address is not held back.
      assert.equal((await get(`${ui.url}/api/v1/whoami`, ACME, from('10.9.0.2'))).status, 200);
    });
  });

  it('bounds the streams a caller holds open across surfaces; a closed one frees its place', async () => {
    await withUi({ api: { limits: { streams: 2 } } }, async (ui, ctx) => {
      const baton = batonFor(ctx, TENANT, 'ops-1');
      const id = await baton.start({ agent: 'supplier-qa', parts: [{ text: 'Verify inspection-92 against order A1042' }] });
      await baton.until(id, (r) => r.status === 'WAITING_INPUT', 20);
      const open = () => {
        const controller = new AbortController();
        const res = fetch(`${ui.url}/api/v1/delegations/${encodeURIComponent(id)}/events`, {
          headers: auth(ACME),
          signal: controller.signal,
        });
        return { res, close: () => controller.abort() };
      };
      const first = open();
      const second = open();
      assert.equal((await first.res).status, 200);
      assert.equal((await second.res).status, 200);
      const third = open();
      const refused = await third.res;
      assert.equal(refused.status, 429);
      assert.match(((await refused.json()) as { error: { message: string } }).error.message, /you hold 2 open streams/);
      // An A2A subscription is a stream of the same caller's.
      const subscribe = await post(`${ui.url}/a2a/supplier-check/jsonrpc`, ACME, jsonRpc('SubscribeToTask', { id: 'x' }));
      assert.equal(subscribe.status, 429);
      // So is an AG-UI run, refused before it starts anything.
      const thread = `agui-budget-${process.pid}-${Date.now()}`;
      const run = await post(`${ui.url}/agui/agents/supplier-qa`, ACME, {
        threadId: thread,
        runId: 'r-1',
        messages: [{ id: 'm-1', role: 'user', content: 'Verify inspection-92 against order A1042' }],
      });
      assert.equal(run.status, 429);
      assert.equal(await baton.owns(new DelegationThread(baton, 'supplier-qa', thread).id), false, 'nothing started');
      // globex's streams are its own.
      const theirs = await fetch(`${ui.url}/api/v1/delegations/${encodeURIComponent(id)}/events`, { headers: auth(GLOBEX) });
      assert.equal(theirs.status, 404, "not its delegation, but not refused for acme's streams");
      first.close();
      await (await first.res).body?.cancel().catch(() => undefined);
      let again: Response | undefined;
      for (let i = 0; i < 50; i++) {
        const next = open();
        again = await next.res;
        if (again.status === 200) {
          next.close();
          break;
        }
        await again.text();
        await new Promise((r) => setTimeout(r, 50)); // the server sees the close a moment after it
      }
      assert.equal(again?.status, 200, 'a closed stream gives its place back');
      second.close();
    });
  });

  it('bounds the MCP sessions one caller holds; others can still open theirs', async () => {
    await withUi({ api: { limits: { mcpSessions: 2 } } }, async (ui) => {
      const first = await post(`${ui.url}/mcp`, ACME, MCP_INIT);
      assert.equal(first.status, 200);
      assert.equal((await post(`${ui.url}/mcp`, ACME, MCP_INIT)).status, 200);
      const third = await post(`${ui.url}/mcp`, ACME, MCP_INIT);
      assert.equal(third.status, 429);
      assert.ok(Number(third.retryAfter) >= 1);
      assert.match(JSON.stringify(third.body), /you hold 2 MCP sessions already \(api\.limits\.mcpSessions\)/);
      assert.equal((await post(`${ui.url}/mcp`, GLOBEX, MCP_INIT)).status, 200, 'another caller opens its own');
      const ended = await fetch(`${ui.url}/mcp`, {
        method: 'DELETE',
        headers: { ...auth(ACME), 'mcp-session-id': first.sessionId as string },
      });
      assert.equal(ended.status, 200);
      assert.equal((await post(`${ui.url}/mcp`, ACME, MCP_INIT)).status, 200, 'an ended session gives its place back');
    });
  });

  it('bounds the work a caller starts: a graph by its nodes, a served task, a delegation', async () => {
    await withUi({ api: { limits: { workStarted: { perMinute: 1, burst: 3 } } } }, async (ui) => {
      const nodes = Array.from({ length: 4 }, (_, i) => ({ id: `n${i}`, agent: 'supplier-qa', text: 'Verify inspection-92' }));
      const big = await post(`${ui.url}/api/v1/graphs`, ACME, { nodes });
      assert.equal(big.status, 400);
      assert.match(
        JSON.stringify(big.body),
        /a graph of 4 nodes is more than the 3 one caller may start at once \(api\.limits\.workStarted\.burst\)/,
      );
      const start = () => post(`${ui.url}/api/v1/delegations`, ACME, { agent: 'supplier-qa', text: 'Verify inspection-92' });
      assert.equal((await start()).status, 201);
      assert.equal((await start()).status, 201);
      const send = (token: string) =>
        post(
          `${ui.url}/a2a/supplier-check/jsonrpc`,
          token,
          jsonRpc('SendMessage', {
            message: { messageId: randomBytes(8).toString('hex'), role: 'ROLE_USER', parts: [{ text: 'Verify' }] },
            configuration: { returnImmediately: true },
          }),
        );
      assert.equal((await send(ACME)).status, 200, 'a served task is work too');
      const past = await start();
      assert.equal(past.status, 429);
      assert.match(JSON.stringify(past.body), /starting a delegation goes past 1 delegations a minute \(bursts of 3\)/);
      assert.equal((await send(ACME)).status, 429);
      assert.equal((await send(GLOBEX)).status, 200, "another caller's allowance is its own");
    });
  });

  it('charges an inbox for the delegations it reads, and reads each waiting request once', async () => {
    await withWorker({ 'supplier-qa': loopbackAgentEntry(agent.url) }, async (ctx) => {
      const baton: BatonClient = batonFor(ctx, INBOX_TENANT, 'ops-1');
      const ids = await Promise.all(
        Array.from({ length: 4 }, () =>
          baton.start({ agent: 'supplier-qa', parts: [{ text: 'Verify inspection-92 against order A1042' }] }),
        ),
      );
      for (const id of ids) await baton.until(id, (r) => r.status === 'WAITING_INPUT', 20);
      // Visibility catches up with the waits a moment after them.
      while ((await baton.list({ status: 'WAITING_INPUT' })).length < 4) await new Promise((r) => setTimeout(r, 100));
      const cache = new InboxCache();
      const first = await baton.inbox({ cache });
      assert.equal(first.records.length, 4);
      assert.equal(first.reads, 4);
      const second = await baton.inbox({ cache });
      assert.deepEqual(
        second.records.map((r) => r.id),
        first.records.map((r) => r.id),
      );
      assert.equal(second.reads, 0, 'nothing read again while the same requests wait');
      assert.equal((await batonFor(ctx, GLOBEX_TENANT, 'ops-9').inbox({ cache })).records.length, 0, "another tenant's cache hits nothing");

      const ui = await startUi(
        configFor(address, ctx.taskQueue, agent.url, { api: { rateLimit: { requestsPerMinute: 1, burst: 10 } } }),
        address,
        quiet,
        {
          port: 0,
        },
      );
      try {
        // 1 for the inbox and 4 for what it read; then 5 left.
        assert.equal((await get(`${ui.url}/api/v1/inbox`, INBOX)).status, 200);
        let left = 0;
        while ((await get(`${ui.url}/api/v1/whoami`, INBOX)).status === 200) left += 1;
        assert.equal(left, 5);
      } finally {
        await ui.close();
      }
    });
  });

  it('reads no unauthenticated codec body, and bounds an authenticated one', async () => {
    const config = ConfigSchema.parse({
      temporal: { address, namespace: 'default' },
      encryption: {
        currentKey: 'k',
        keys: { k: { fromEnv: 'BATON_BUDGET_TEST_KEY' } },
        codecServer: { tokensFromEnv: ['BATON_BUDGET_TEST_CODEC'], maxRequestBytes: 1024 * 1024 },
      },
      api: { listen: { port: 0 } },
    }) as BatonConfig;
    const ui = await startUi(config, address, quiet, { port: 0 });
    try {
      const endpoint = new URL(`${ui.codecUrl as string}/decode`);
      // 30 MB announced, 5 bytes sent, the rest held back: answered at once, nothing waited for.
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: endpoint.hostname,
            port: endpoint.port,
            path: endpoint.pathname,
            method: 'POST',
            headers: { 'content-type': 'application/json', 'content-length': '30000000' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
            req.destroy();
          },
        );
        req.on('error', reject);
        req.write('{"pay');
      });
      assert.equal(status, 401);
      const big = JSON.stringify({ payloads: [{ data: Buffer.alloc(1024 * 1024).toString('base64') }] });
      const tooLarge = await fetch(endpoint, {
        method: 'POST',
        headers: { ...auth(CODEC), 'content-type': 'application/json' },
        body: big,
      });
      assert.equal(tooLarge.status, 413);
      assert.match(((await tooLarge.json()) as { error: { message: string } }).error.message, /more than 1024 KiB .*maxRequestBytes/);
      // More requests than there are turns (4), one after another: each turn ends with its response.
      for (let n = 0; n < 6; n++) {
        const ok = await fetch(endpoint, {
          method: 'POST',
          headers: { ...auth(CODEC), 'content-type': 'application/json' },
          body: JSON.stringify({ payloads: [] }),
        });
        assert.equal(ok.status, 200, `request ${n + 1}`);
      }
    } finally {
      await ui.close();
    }
  });
});

describe('one budget shared by replicas (PostgreSQL)', () => {
  let postgres: RunningPostgres;
  let address: string;
  let agent: RunningAgent;
  before(async () => {
    postgres = startPostgres(mkdtempSync(join(tmpdir(), 'baton-budget-pg-')), await freePort());
    process.env.BATON_BUDGET_TEST_PG = `postgres://${postgres.user}@127.0.0.1:${postgres.port}/postgres`;
    address = (await testServer()).address;
    agent = await startAgentServer(supplierQa({ workMs: 30 }));
  });
  after(async () => {
    await agent.close();
    postgres.stop();
  });

  it('gives a caller one request budget and one set of streams across two replicas of baton ui', async () => {
    const shared = {
      api: {
        rateLimit: { requestsPerMinute: 1, burst: 4 },
        limits: { streams: 1, store: { postgres: { urlFromEnv: 'BATON_BUDGET_TEST_PG' } } },
      },
    };
    await withWorker({ 'supplier-qa': loopbackAgentEntry(agent.url) }, async (ctx) => {
      const one = await startUi(configFor(address, ctx.taskQueue, agent.url, shared), address, quiet, { port: 0 });
      const two = await startUi(configFor(address, ctx.taskQueue, agent.url, shared), address, quiet, { port: 0 });
      try {
        for (const ui of [one, two, one, two]) assert.equal((await get(`${ui.url}/api/v1/whoami`, ACME)).status, 200);
        assert.equal((await get(`${one.url}/api/v1/whoami`, ACME)).status, 429);
        assert.equal((await get(`${two.url}/api/v1/whoami`, ACME)).status, 429);
        assert.equal((await get(`${two.url}/api/v1/whoami`, GLOBEX)).status, 200);

        // One stream for globex across both: the second replica refuses a second one.
        const baton = batonFor(ctx, GLOBEX_TENANT, 'ops-9');
        const id = await baton.start({ agent: 'supplier-qa', parts: [{ text: 'Verify inspection-92 against order A1042' }] });
        await baton.until(id, (r) => r.status === 'WAITING_INPUT', 20);
        const controller = new AbortController();
        const held = await fetch(`${one.url}/api/v1/delegations/${encodeURIComponent(id)}/events`, {
          headers: auth(GLOBEX),
          signal: controller.signal,
        });
        assert.equal(held.status, 200);
        const refused = await fetch(`${two.url}/api/v1/delegations/${encodeURIComponent(id)}/events`, { headers: auth(GLOBEX) });
        assert.equal(refused.status, 429);
        await refused.text();
        controller.abort();
      } finally {
        await one.close();
        await two.close();
      }
    });
  });
});
