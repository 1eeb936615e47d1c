/**
 * The HTTP API on a real server against a real worker and agent: every answer is checked against the
 * OpenAPI document the server serves, and the document itself against the OpenAPI 3.1 schema.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { PolicyRegistry } from '../../src/acceptance/policies';
import { BatonClient } from '../../src/client/baton-client';
import { GraphClient } from '../../src/client/graph-client';
import { DeclaredPolicySchema } from '../../src/config/schema';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { skywayAir } from '../../src/demo/trip-agents';
import { startApiServer, type RunningApi } from '../../src/http/api-server';
import { CallerTokens } from '../../src/auth/caller-tokens';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { OpenApiCheck } from '../helpers/openapi-check';
import { loopbackAgent, withWorker, type TestWorkerContext } from '../helpers/temporal';
import { readEvents } from '../helpers/sse';

// An ES module, loaded with Node's require(esm); typed here by the little this test uses.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Validator } = require('@seriousme/openapi-schema-validator') as {
  Validator: new () => { validate(spec: object): Promise<{ valid: boolean; errors?: unknown }> };
};

// Bodies are checked against the OpenAPI document on arrival, then read loosely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

const ACME = 'acme-token-0123456789abcdef';
const GLOBEX = 'globex-token-0123456789abcdef';

describe('HTTP API', () => {
  const agents: RunningAgent[] = [];
  before(async () => {
    agents.push(await startAgentServer(supplierQa({ workMs: 30 })), await startAgentServer(skywayAir({ workMs: 30 })));
  });
  after(async () => {
    for (const a of agents) await a.close();
  });

  const serve = async (
    ctx: TestWorkerContext,
    fn: (
      api: RunningApi,
      call: (
        method: string,
        path: string,
        opts?: { token?: string | null; body?: unknown; rawBody?: string },
      ) => Promise<{ status: number; body: Body }>,
      check: OpenApiCheck,
    ) => Promise<void>,
  ) => {
    const opts = { namespace: ctx.client.options.namespace, taskQueue: ctx.taskQueue, caller: { tenant: 'nobody', user: 'nobody' } };
    const tokens = new CallerTokens([
      { token: ACME, caller: { tenant: 'acme', user: 'ops-1' } },
      { token: GLOBEX, caller: { tenant: 'globex', user: 'mallory' } },
    ]);
    const api = await startApiServer({
      baton: new BatonClient(ctx.client.connection, opts),
      graphs: new GraphClient(ctx.client.connection, opts),
      tokens,
      logger: pino({ level: 'warn' }),
      host: '127.0.0.1',
      port: 0,
      pollMs: 100,
      uiDir: null,
    });
    try {
      const docRes = await fetch(`${api.url}/api/v1/openapi.json`);
      const doc = (await docRes.json()) as ConstructorParameters<typeof OpenApiCheck>[0];
      const check = new OpenApiCheck(doc);
      const call = async (method: string, path: string, o: { token?: string | null; body?: unknown; rawBody?: string } = {}) => {
        const token = o.token === undefined ? ACME : o.token;
        const res = await fetch(`${api.url}/api/v1${path}`, {
          method,
          headers: {
            ...(token ? { Authorization: `Bearer ${token}` } : {}),
            ...(o.body !== undefined || o.rawBody !== undefined ? { 'Content-Type': 'application/json' } : {}),
          },
          body: o.rawBody ?? (o.body !== undefined ? JSON.stringify(o.body) : undefined),
        });
        const body: unknown = await res.json();
        check.check(method, path, res.status, body);
        return { status: res.status, body: body as Body };
      };
      await fn(api, call, check);
    } finally {
      await api.close();
    }
  };

  it('serves a valid OpenAPI 3.1 document', async () => {
    await withWorker({}, async (ctx) =>
      serve(ctx, async (api) => {
        const doc = await (await fetch(`${api.url}/api/v1/openapi.json`)).json();
        const result = await new Validator().validate(doc as object);
        assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1));
        assert.equal((doc as { openapi: string }).openapi, '3.1.0');
      }),
    );
  });

  it('starts, streams, answers through the inbox, and shows a delegation; every answer matches the document', async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(agents[0]?.url ?? '') }, async (ctx) =>
      serve(ctx, async (api, call, check) => {
        assert.deepEqual((await call('GET', '/whoami')).body, { tenant: 'acme', user: 'ops-1' });
        const started = await call('POST', '/delegations', {
          body: { agent: 'supplier-qa', text: 'Verify inspection-92 against order A1042' },
        });
        assert.equal(started.status, 201);
        const id = started.body.id as string;

        // The stream says when it waits; the record in the event is the same as the one shown.
        const waiting = await readEvents(
          `${api.url}/api/v1/delegations/${encodeURIComponent(id)}/events`,
          ACME,
          (e, d) => e === 'status' && (d as DelegationRecord).status === 'WAITING_INPUT',
        );
        for (const e of waiting) check.check('GET', `/delegations/${id}`, 200, e.data);
        const request = (waiting.at(-1)?.data as DelegationRecord).pending;
        assert.equal(request?.kind, 'input');

        const inbox = await call('GET', '/inbox');
        const item = inbox.body.requests.find((r: { delegationId: string }) => r.delegationId === id);
        assert.equal(item?.requestId, request?.requestId);
        assert.match(JSON.stringify(item.prompt), /serial number/i);
        assert.equal(
          (await call('GET', '/inbox', { token: GLOBEX })).body.requests.some((r: { delegationId: string }) => r.delegationId === id),
          false,
          'another tenant’s inbox does not show it',
        );

        // Refusals, each typed: another tenant, a stale request id, a malformed body, no token.
        assert.deepEqual(
          [(await call('POST', `/delegations/${id}/answer`, { token: GLOBEX, body: { requestId: request?.requestId, text: 'x' } })).status],
          [404],
        );
        const stale = await call('POST', `/delegations/${id}/answer`, { body: { requestId: `${id}/request-9`, text: 'SN-4471' } });
        assert.equal(stale.status, 409);
        assert.equal(stale.body.error.type, 'Refused');
        const malformed = await call('POST', `/delegations/${id}/answer`, { body: { requestId: request?.requestId } });
        assert.equal(malformed.status, 400);
        assert.match(malformed.body.error.message, /give text or parts/);
        assert.equal((await call('POST', `/delegations/${id}/answer`, { rawBody: '{"requestId": ' })).status, 400);
        assert.equal(
          (await call('POST', `/delegations/${id}/answer`, { body: { requestId: 'x', text: 'y'.repeat(1_100_000) } })).status,
          413,
        );
        assert.equal((await call('GET', `/delegations/${id}`, { token: null })).status, 401);
        assert.equal((await call('GET', `/delegations/${id}`, { token: 'a-token-nobody-was-given-1234' })).status, 401);

        const sent = await call('POST', `/delegations/${id}/answer`, { body: { requestId: request?.requestId, text: 'SN-4471' } });
        assert.equal(sent.status, 200);
        assert.equal(sent.body.messageId, `${id}/turn-2`);
        const settled = await readEvents(`${api.url}/api/v1/delegations/${encodeURIComponent(id)}/events`, ACME, (e) => e === 'settled');
        assert.deepEqual(settled.at(-1), {
          event: 'settled',
          data: {
            id,
            outcome: { kind: 'ACCEPTED', reasons: (settled.at(-1)?.data as { outcome: { reasons: string[] } }).outcome.reasons },
          },
        });

        const shown = await call('GET', `/delegations/${encodeURIComponent(id)}`);
        assert.equal(shown.body.outcome.kind, 'ACCEPTED');
        assert.equal(shown.body.artifacts[0].sha256.length, 64);
        // The artifact's bytes: an attachment of no declared type, whose digest is the record's.
        const artifact = shown.body.artifacts[0] as { artifactId: string; sha256: string; name?: string };
        const contentPath = `/delegations/${encodeURIComponent(id)}/artifacts/${encodeURIComponent(artifact.artifactId)}/content`;
        const content = await fetch(`${api.url}/api/v1${contentPath}`, { headers: { Authorization: `Bearer ${ACME}` } });
        assert.equal(content.status, 200);
        assert.equal(content.headers.get('content-type'), 'application/octet-stream');
        assert.match(content.headers.get('content-disposition') ?? '', /^attachment; filename="[A-Za-z0-9._-]+"$/);
        assert.equal(content.headers.get('x-baton-sha256'), artifact.sha256);
        const bytes = Buffer.from(await content.arrayBuffer());
        assert.equal(createHash('sha256').update(bytes).digest('hex'), artifact.sha256, 'the bytes the digest describes');
        assert.equal((await call('GET', contentPath, { token: GLOBEX })).status, 404, 'not to another tenant');
        const missing = await call('GET', `/delegations/${encodeURIComponent(id)}/artifacts/no-such-artifact/content`);
        assert.deepEqual([missing.status, missing.body.error.type], [404, 'NotFound']);
        const listed = await call('GET', '/delegations?status=SETTLED&agent=supplier-qa');
        assert.ok(listed.body.delegations.some((d: { id: string }) => d.id === id));
        assert.equal((await call('GET', '/delegations?status=bad%20value')).status, 400);
        assert.equal((await call('GET', '/delegations', { token: GLOBEX })).body.delegations.length, 0);
        assert.equal(
          (await call('POST', `/delegations/${id}/cancel`, { body: {} })).status,
          409,
          'a settled delegation cannot be cancelled',
        );
        assert.equal((await call('GET', '/delegations/dlg-no-such-thing')).status, 404);
        assert.equal((await call('POST', '/delegations', { body: { agent: 'supplier-qa' } })).status, 400);
        // A caller-chosen id makes a retried POST safe: the second one starts nothing.
        const own = `order-A1042-check-${Date.now()}`;
        assert.equal(
          (
            await call('POST', '/delegations', {
              body: { agent: 'supplier-qa', id: own, text: 'Verify inspection-92 against order A1042, product SN-4471' },
            })
          ).status,
          201,
        );
        const again = await call('POST', '/delegations', {
          body: { agent: 'supplier-qa', id: own, text: 'Verify inspection-92 against order A1042, product SN-4471' },
        });
        assert.equal(again.status, 409);
        assert.match(again.body.error.message, /exists already/);
      }),
    );
  });

  it('cancels, reviews and authorizes through the same checks, and shows a graph', async () => {
    const policies = new PolicyRegistry().declareAll({
      'second-look': DeclaredPolicySchema.parse({ base: 'completed-with-artifact', review: true }),
    });
    await withWorker(
      { 'supplier-qa': loopbackAgent(agents[0]?.url ?? ''), 'skyway-air': loopbackAgent(agents[1]?.url ?? '') },
      async (ctx) =>
        serve(ctx, async (_api, call) => {
          const id = (
            await call('POST', '/delegations', { body: { agent: 'supplier-qa', text: 'Verify inspection-92 against order A1042' } })
          ).body.id as string;
          const waiting = await batonOf(ctx).until(id, (r) => r.pending !== null, 50);
          // Auth and review answers to an input request are refused by the workflow's own validator.
          const wrongKind = await call('POST', `/delegations/${id}/authorize`, {
            body: { requestId: waiting.pending?.requestId, credential: 'qa-token' },
          });
          assert.equal(wrongKind.status, 409);
          assert.equal(
            (await call('POST', `/delegations/${id}/review`, { body: { requestId: waiting.pending?.requestId, decision: 'accept' } }))
              .status,
            409,
          );
          assert.equal((await call('POST', `/delegations/${id}/cancel`, { token: GLOBEX, body: {} })).status, 404);
          const cancelled = await call('POST', `/delegations/${id}/cancel`, { body: { reason: 'order withdrawn' } });
          assert.equal(cancelled.status, 200);
          assert.equal(cancelled.body.outcome.kind, 'CANCELED');

          // A result that waits for review: the inbox shows what to decide on; the API decides it.
          const reviewed = (
            await call('POST', '/delegations', {
              body: { agent: 'supplier-qa', text: 'Verify inspection-93 against order A1043, product SN-5120', policy: 'second-look' },
            })
          ).body.id as string;
          const inReview = await batonOf(ctx).until(reviewed, (r) => r.pending?.kind === 'review', 50);
          const item = (await call('GET', '/inbox')).body.requests.find((r: { delegationId: string }) => r.delegationId === reviewed);
          assert.equal(item.kind, 'review');
          assert.deepEqual(
            item.artifacts.map((a: { sha256: string }) => a.sha256),
            inReview.artifacts.map((a) => a.sha256),
          );
          const decided = await call('POST', `/delegations/${reviewed}/review`, {
            body: { requestId: inReview.pending?.requestId, decision: 'accept', reason: 'photos checked' },
          });
          assert.equal(decided.status, 200);
          assert.equal(decided.body.outcome.kind, 'ACCEPTED');

          const graphs = new GraphClient(ctx.client.connection, {
            namespace: ctx.client.options.namespace,
            taskQueue: ctx.taskQueue,
            caller: { tenant: 'acme', user: 'ops-1' },
          });
          const graphId = await graphs.start({ nodes: [{ id: 'flight', agent: 'skyway-air', text: 'Book HEL-ROV on 2027-02-03' }] });
          await graphs.result(graphId);
          const graph = await call('GET', `/graphs/${graphId}`);
          assert.equal(graph.body.nodes[0].status, 'SETTLED');
          // A graph node's delegation id has a slash, URL-encoded in the path.
          const node = await call('GET', `/delegations/${encodeURIComponent(`${graphId}/flight`)}`);
          assert.equal(node.body.outcome.kind, 'ACCEPTED');
          assert.equal((await call('GET', `/graphs/${graphId}`, { token: GLOBEX })).status, 404);
        }),
      { policies },
    );
  });

  it('starts, lists, extends and cancels graphs; pages their nodes; another tenant sees none of it', async () => {
    const registry = { 'supplier-qa': loopbackAgent(agents[0]?.url ?? ''), 'skyway-air': loopbackAgent(agents[1]?.url ?? '') };
    await withWorker(registry, async (ctx) =>
      serve(ctx, async (_api, call) => {
        // A spec the client refuses: every problem named, nothing started.
        const bad = await call('POST', '/graphs', { body: { nodes: [{ id: 'a', agent: 'skyway-air', text: 'x', dependsOn: ['ghost'] }] } });
        assert.equal(bad.status, 400);
        assert.match(bad.body.error.message, /node a: depends on unknown node ghost/);

        const spec = {
          concurrency: 2,
          nodes: [
            // The agent asks a question nobody answers: the graph runs until it is cancelled.
            { id: 'check', agent: 'supplier-qa', text: 'Verify inspection-92 against order A1042' },
            ...Array.from({ length: 5 }, (_, i) => ({ id: `seat-${i}`, agent: 'skyway-air', text: `Book seat ${i} on HEL-ROV` })),
          ],
        };
        const started = await call('POST', '/graphs', { body: { ...spec, id: `api-graph-${Date.now()}` } });
        assert.equal(started.status, 201);
        const id = started.body.id as string;
        assert.equal((await call('POST', '/graphs', { body: { ...spec, id } })).status, 409, 'an id names one graph');

        // A follow-up through the API, refused when it breaks the graph, taken otherwise.
        const refused = await call('POST', `/graphs/${id}/nodes`, {
          body: { id: 'x', agent: 'skyway-air', text: 'hi', dependsOn: ['nope'] },
        });
        assert.equal(refused.status, 409);
        assert.match(refused.body.error.message, /depends on unknown node nope/);
        const added = await call('POST', `/graphs/${id}/nodes`, {
          body: { id: 'seat-5', agent: 'skyway-air', text: 'Book seat 5 too', dependsOn: ['seat-0'] },
        });
        assert.equal(added.status, 201);
        assert.deepEqual(added.body, { nodeId: 'seat-5', delegationId: `${id}/seat-5` });
        assert.equal(
          (await call('POST', `/graphs/${id}/nodes`, { token: GLOBEX, body: { id: 'y', agent: 'skyway-air', text: 'hi' } })).status,
          404,
        );

        // Listed for its tenant (running, then settled), not for another.
        const listed = (await call('GET', '/graphs?status=running')).body.graphs as { id: string; status: string }[];
        assert.equal(listed.find((g) => g.id === id)?.status, 'RUNNING');
        assert.deepEqual((await call('GET', '/graphs', { token: GLOBEX })).body.graphs, []);
        assert.equal((await call('GET', '/graphs?status=sideways')).status, 400);

        // A page of nodes, of one state.
        const page = await call('GET', `/graphs/${id}?offset=2&limit=3`);
        assert.deepEqual(
          page.body.nodes.map((n: { id: string }) => n.id),
          ['seat-1', 'seat-2', 'seat-3'],
        );
        assert.deepEqual(page.body.page, { offset: 2, limit: 3, total: 7 });
        assert.equal((await call('GET', `/graphs/${id}?limit=5000`)).status, 400);

        assert.equal((await call('POST', `/graphs/${id}/cancel`, { token: GLOBEX, body: {} })).status, 404);
        const cancelled = await call('POST', `/graphs/${id}/cancel`, { body: { reason: 'flight called off' } });
        assert.equal(cancelled.status, 200);
        assert.equal(cancelled.body.outcome.kind, 'CANCELED');
        assert.equal((await call('POST', `/graphs/${id}/cancel`, { body: {} })).status, 409, 'a settled graph takes no cancel');
        let settled: { id: string; status: string }[] = [];
        // The visibility index is eventually consistent: ask again until it has caught up (bounded).
        for (let i = 0; i < 100 && !settled.some((g) => g.id === id); i++)
          settled = (await call('GET', '/graphs?status=settled')).body.graphs;
        assert.equal(settled.find((g) => g.id === id)?.status, 'SETTLED');
      }),
    );
  });
});

const batonOf = (ctx: TestWorkerContext): BatonClient =>
  new BatonClient(ctx.client.connection, {
    namespace: ctx.client.options.namespace,
    taskQueue: ctx.taskQueue,
    caller: { tenant: 'acme', user: 'ops-1' },
  });
