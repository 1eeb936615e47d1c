/**
 * Another tenant's delegation or graph is indistinguishable from one that does not exist, for every
 * operation, in the CLI and the HTTP API: the same exit code or status, and the same words but for the id.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { BatonClient } from '../../src/client/baton-client';
import { GraphClient } from '../../src/client/graph-client';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { startApiServer } from '../../src/http/api-server';
import { CallerTokens } from '../../src/auth/caller-tokens';
import { runCli, userEnv } from '../../infra/cli-process';
import { batonFor, loopbackAgent, testServer, withWorker } from '../helpers/temporal';

const MISSING = 'dlg-not-there-at-all';
const MISSING_GRAPH = 'graph-not-there-at-all';

/** `text` with the ids taken out: what is left must be the same for a foreign id and a missing one. */
const withoutIds = (text: string, ...ids: string[]): string => ids.reduce((t, id) => t.split(id).join('<id>'), text);

describe("another tenant's ids look like missing ones", () => {
  let qa: RunningAgent;
  before(async () => {
    qa = await startAgentServer(supplierQa({ workMs: 20 }));
  });
  after(async () => {
    await qa.close();
  });

  it('in the CLI and the HTTP API, for every operation', async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(qa.url) }, async (ctx) => {
      const owner = batonFor(ctx, 'acme', 'ops-1');
      const id = await owner.start({ agent: 'supplier-qa', parts: [{ text: 'Verify inspection-92 against order A1042' }] });
      const waiting = await owner.until(id, (r) => r.pending !== null, 50);
      const requestId = waiting.pending?.requestId ?? '';
      const graphs = new GraphClient(ctx.client.connection, {
        namespace: 'default',
        taskQueue: ctx.taskQueue,
        caller: { tenant: 'acme', user: 'ops-1' },
      });
      const graphId = await graphs.start({
        nodes: [{ id: 'check', agent: 'supplier-qa', text: 'Verify inspection-92 against order A1042' }],
      });

      // The CLI as a user of another tenant.
      const { address } = await testServer();
      const config = join(mkdtempSync(join(tmpdir(), 'baton-not-found-')), 'baton.config.yaml');
      writeFileSync(
        config,
        `temporal: { address: "${address}", taskQueue: "${ctx.taskQueue}" }\ncaller: { tenant: globex, user: mallory }\n`,
      );
      const env = userEnv({ BATON_CONFIG: config });
      const commands: [string, (d: string, r: string, g: string) => string[]][] = [
        ['show', (d) => ['show', d]],
        ['answer', (d, r) => ['answer', d, '--request', r, '--text', 'SN-666']],
        ['answer without --request', (d) => ['answer', d, '--text', 'SN-666']],
        ['authorize', (d, r) => ['authorize', d, '--request', r, '--credential', 'portal']],
        ['review', (d, r) => ['review', d, '--request', r, '--accept']],
        ['cancel', (d) => ['cancel', d]],
        ['watch', (d) => ['watch', d]],
        ['graph show', (_d, _r, g) => ['graph', 'show', g]],
        ['graph add', (_d, _r, g) => ['graph', 'add', g, '--node', 'x', '--agent', 'supplier-qa', '--text', 'again']],
        ['graph cancel', (_d, _r, g) => ['graph', 'cancel', g]],
      ];
      for (const [name, args] of commands) {
        const foreign = await runCli(args(id, requestId, graphId), env);
        const missing = await runCli(args(MISSING, `${MISSING}/request-1`, MISSING_GRAPH), env);
        assert.notEqual(foreign.code, 0, `${name}: refused`);
        assert.deepEqual(
          { code: foreign.code, stderr: withoutIds(foreign.stderr, requestId, graphId, id) },
          { code: missing.code, stderr: withoutIds(missing.stderr, `${MISSING}/request-1`, MISSING_GRAPH, MISSING) },
          name,
        );
      }

      // The HTTP API with the other tenant's token.
      const opts = { namespace: 'default', taskQueue: ctx.taskQueue, caller: { tenant: 'nobody', user: 'nobody' } };
      const api = await startApiServer({
        baton: new BatonClient(ctx.client.connection, opts),
        graphs: new GraphClient(ctx.client.connection, opts),
        tokens: new CallerTokens([{ token: 'globex-token-0123456789abcdef', caller: { tenant: 'globex', user: 'mallory' } }]),
        logger: pino({ level: 'silent' }),
        host: '127.0.0.1',
        port: 0,
        uiDir: null,
      });
      try {
        const call = async (method: string, path: string, body?: unknown) => {
          const res = await fetch(`${api.url}/api/v1${path}`, {
            method,
            headers: { Authorization: 'Bearer globex-token-0123456789abcdef', ...(body ? { 'Content-Type': 'application/json' } : {}) },
            body: body ? JSON.stringify(body) : undefined,
          });
          return { status: res.status, text: await res.text() };
        };
        const routes: [string, string, (r: string) => unknown][] = [
          ['GET', '/delegations/{id}', () => undefined],
          ['GET', '/delegations/{id}/events', () => undefined],
          ['POST', '/delegations/{id}/answer', (r) => ({ requestId: r, text: 'SN-666' })],
          ['POST', '/delegations/{id}/authorize', (r) => ({ requestId: r, credential: 'portal' })],
          ['POST', '/delegations/{id}/review', (r) => ({ requestId: r, decision: 'accept' })],
          ['POST', '/delegations/{id}/cancel', () => ({})],
          ['GET', '/graphs/{graph}', () => undefined],
        ];
        for (const [method, route, body] of routes) {
          const path = (d: string, g: string) => route.replace('{id}', encodeURIComponent(d)).replace('{graph}', encodeURIComponent(g));
          const foreign = await call(method, path(id, graphId), body(requestId));
          const missing = await call(method, path(MISSING, MISSING_GRAPH), body(`${MISSING}/request-1`));
          assert.equal(foreign.status, 404, `${method} ${route}`);
          assert.deepEqual(
            { status: foreign.status, text: withoutIds(foreign.text, requestId, graphId, id) },
            { status: missing.status, text: withoutIds(missing.text, `${MISSING}/request-1`, MISSING_GRAPH, MISSING) },
            `${method} ${route}`,
          );
        }
      } finally {
        await api.close();
      }
      assert.equal((await owner.show(id)).status, 'WAITING_INPUT', "nothing the stranger did changed the owner's delegation");
      await graphs.cancel(graphId);
      await owner.cancel(id);
    });
  });
});
