/**
 * The hostile caller matrix: what one caller (or anyone without a token) tries against `baton ui` to
 * take more than its share or to make the server fail, each case refused with a 4xx in the surface's
 * own form (never a 5xx, never a slower server for others): bodies before a token, guesses, floods of
 * sessions, streams and work, data nested without end, over-long ids and page tokens.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import pino from 'pino';
import { ConfigSchema, loopbackAgentEntry, type BatonConfig } from '../../src/config/schema';
import { startAgentServer } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { startUi } from '../../src/http/start-ui';
import { batonFor, testServer, withWorker } from '../helpers/temporal';
import type { MatrixReport } from './matrices';

const variable = (name: string): string => {
  process.env[name] = randomBytes(18).toString('base64url');
  return process.env[name] as string;
};

const deep = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

export async function hostileCallerMatrix(): Promise<MatrixReport> {
  const report: MatrixReport = { matrix: 'hostile caller', cases: 0, refused: 0, let_through: [] };
  const token = variable('BATON_MATRIX_CALLER');
  const codecToken = variable('BATON_MATRIX_CODEC');
  process.env.BATON_MATRIX_KEY = randomBytes(32).toString('base64');
  const tenant = `hostile-${randomUUID().slice(0, 6)}`;
  const agent = await startAgentServer(supplierQa({ workMs: 30 }));
  const { address } = await testServer();
  try {
    await withWorker({ 'supplier-qa': loopbackAgentEntry(agent.url) }, async (ctx) => {
      const config = ConfigSchema.parse({
        temporal: { address, namespace: 'default', taskQueue: ctx.taskQueue },
        agents: { 'supplier-qa': loopbackAgentEntry(agent.url) },
        api: { listen: { port: 0 }, callers: [{ tokenFromEnv: 'BATON_MATRIX_CALLER', tenant, user: 'mallory' }], trustProxy: 1 },
        serve: {
          services: {
            check: {
              description: 'supplier-qa behind Baton',
              skills: [{ id: 'verify', name: 'Verify', description: 'Verifies a report' }],
              delegate: { agent: 'supplier-qa' },
            },
          },
        },
      }) as BatonConfig;
      const ui = await startUi(config, address, pino({ level: 'silent' }), { port: 0 });
      // The codec server needs payload encryption: a second, client-only process of its own.
      const codecUi = await startUi(
        ConfigSchema.parse({
          temporal: { address, namespace: 'default' },
          encryption: {
            currentKey: 'k',
            keys: { k: { fromEnv: 'BATON_MATRIX_KEY' } },
            codecServer: { tokensFromEnv: ['BATON_MATRIX_CODEC'] },
          },
          api: { listen: { port: 0 } },
        }) as BatonConfig,
        address,
        pino({ level: 'silent' }),
        { port: 0 },
      );
      const from = (source: string) => ({ 'x-forwarded-for': source });
      const call = async (
        path: string,
        init: { method?: string; body?: string; token?: string; headers?: Record<string, string> } = {},
      ) => {
        const res = await fetch(`${ui.url}${path}`, {
          method: init.method ?? (init.body ? 'POST' : 'GET'),
          headers: {
            ...(init.token !== '' ? { authorization: `Bearer ${init.token ?? token}` } : {}),
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'A2A-Version': '1.0',
            ...init.headers,
          },
          ...(init.body ? { body: init.body } : {}),
        });
        const text = await res.text();
        return { status: res.status, text };
      };
      const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
      const sendMessage = (message: Record<string, unknown>) =>
        rpc('SendMessage', {
          message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Verify' }], ...message },
          configuration: { returnImmediately: true },
        });
      /** Refused: a 4xx (or a JSON-RPC error that is not an internal one), never a 5xx. */
      const refused = (got: { status: number; text: string }, want?: RegExp): boolean =>
        got.status >= 400 && got.status < 500 ? !want || want.test(got.text) : got.status === 200 && /"code":-32602/.test(got.text);
      const check = async (name: string, attempt: () => Promise<boolean>): Promise<void> => {
        report.cases += 1;
        try {
          if (await attempt()) report.refused += 1;
          else report.let_through.push(name);
        } catch (err) {
          report.let_through.push(`${name} (${(err as Error).message})`);
        }
      };
      const served = '/a2a/check/jsonrpc';

      await check('an unauthenticated 30 MB body to the codec server, answered before it is read', () => {
        const url = new URL(`${codecUi.codecUrl as string}/decode`);
        return new Promise<boolean>((resolve) => {
          const req = request(
            {
              host: url.hostname,
              port: url.port,
              path: url.pathname,
              method: 'POST',
              headers: { 'content-length': '30000000', 'content-type': 'application/json' },
            },
            (res) => {
              res.resume();
              req.destroy();
              resolve(res.statusCode === 401);
            },
          );
          req.on('error', () => resolve(false));
          req.write('{"payloads":['); // and nothing more: the rest is never sent
        });
      });
      await check('an authenticated codec body over its limit', async () => {
        const res = await fetch(`${codecUi.codecUrl as string}/decode`, {
          method: 'POST',
          headers: { authorization: `Bearer ${codecToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ payloads: [{ data: Buffer.alloc(5 * 1024 * 1024).toString('base64') }] }),
        });
        await res.text();
        return res.status === 413;
      });
      await check('an API body nested 5,000 levels', async () =>
        refused(await call('/api/v1/delegations', { body: `{"agent":"supplier-qa","parts":[{"data":${deep(5000)}}]}` }), /nests deeper/),
      );
      await check('an A2A message nested 5,000 levels', async () =>
        refused(
          await call(served, { body: sendMessage({ parts: [{ data: JSON.parse('{}') }] }).replace('"data":{}', `"data":${deep(5000)}`) }),
          /nests deeper/,
        ),
      );
      await check('an MCP request nested 5,000 levels', async () =>
        refused(await call('/mcp', { body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":${deep(5000)}}` })),
      );
      await check('a contextId of 3,000 characters on SendMessage', async () =>
        refused(await call(served, { body: sendMessage({ contextId: 'c'.repeat(3000) }) })),
      );
      await check('a contextId of 3,000 characters on ListTasks', async () =>
        refused(await call(served, { body: rpc('ListTasks', { contextId: 'c'.repeat(3000) }) })),
      );
      await check('a ListTasks pageToken it was never given', async () =>
        refused(await call(served, { body: rpc('ListTasks', { pageToken: 'QUFBQUFBQUFBQUFB' }) })),
      );
      await check('a ListTasks pageToken that is not base64', async () =>
        refused(await call(served, { body: rpc('ListTasks', { pageToken: '!!not-a-token!!' }) })),
      );
      await check('a graph of 10,000 nodes in one POST', async () => {
        const nodes = Array.from({ length: 10_000 }, (_, i) => ({ id: `n${i}`, agent: 'supplier-qa', text: 'Verify' }));
        return refused(await call('/api/v1/graphs', { body: JSON.stringify({ nodes }) }), /api\.limits\.workStarted\.burst/);
      });
      await check('another contextId than its own, with a task that is not its own', async () =>
        refused(
          await call('/api/v1/delegations', {
            body: JSON.stringify({
              agent: 'supplier-qa',
              text: 'x',
              contextId: 'someone-elses-context',
              referenceTaskIds: ['someone-elses-task'],
            }),
          }),
          /referenceTaskIds/,
        ),
      );
      await check('more MCP sessions than a caller may hold', async () => {
        const init = JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'm', version: '1' } },
        });
        const statuses: number[] = [];
        for (let i = 0; i < 12; i++) statuses.push((await call('/mcp', { body: init })).status);
        return statuses.filter((s) => s === 200).length === 10 && statuses.slice(10).every((s) => s === 429);
      });
      await check('more open streams than a caller may hold', async () => {
        const baton = batonFor(ctx, tenant, 'mallory');
        const id = await baton.start({ agent: 'supplier-qa', parts: [{ text: 'Verify inspection-92 against order A1042' }] });
        await baton.until(id, (r) => r.status === 'WAITING_INPUT', 20);
        const controller = new AbortController();
        const opened = await Promise.all(
          Array.from({ length: 22 }, () =>
            fetch(`${ui.url}/api/v1/delegations/${encodeURIComponent(id)}/events`, {
              headers: { authorization: `Bearer ${token}` },
              signal: controller.signal,
            }).then((r) => r.status),
          ),
        );
        controller.abort();
        await baton.cancel(id, 'matrix done');
        return opened.filter((s) => s === 200).length === 20 && opened.filter((s) => s === 429).length === 2;
      });
      await check('40 token guesses in the codec server path (/codec/<token>/decode)', async () => {
        const statuses: number[] = [];
        const began = performance.now();
        for (let i = 0; i < 40; i++) {
          const res = await fetch(`${codecUi.codecUrl as string}/guess-${i}-0123456789abcdef/decode`, {
            method: 'POST',
            body: '{"payloads":[]}',
            headers: { 'content-type': 'application/json' },
          });
          await res.text();
          statuses.push(res.status);
        }
        // At most the allowance (30, less what the unauthenticated body above used) is answered 401 in a row; after
        // that only what refills (one guess every 2 s) while the 40 run, which a loaded machine makes more than none.
        const refilled = Math.ceil((performance.now() - began) / 2000);
        const first = statuses.indexOf(429);
        const answered = statuses.filter((s) => s === 401).length;
        return (
          first > 0 &&
          first <= 31 &&
          statuses.slice(0, first).every((s) => s === 401) &&
          statuses.every((s) => s === 401 || s === 429) &&
          answered <= 31 + refilled
        );
      });
      await check('600 token guesses from one address, on the API, /a2a and /mcp', async () => {
        const paths = ['/api/v1/whoami', '/a2a/check/rest/v1/tasks/x', '/mcp'];
        const statuses: number[] = [];
        for (let i = 0; i < 600; i++)
          statuses.push(
            (await call(paths[i % paths.length] as string, { token: `guess-${i}-0123456789abcdef`, headers: from('10.66.0.1') })).status,
          );
        const throttled = statuses.filter((s) => s === 429).length;
        // The right token from that address is refused too, then; from another it is not.
        const right = await call('/api/v1/whoami', { headers: from('10.66.0.1') });
        const elsewhere = await call('/api/v1/whoami', { headers: from('10.66.0.2') });
        return throttled >= 560 && statuses.slice(0, 30).every((s) => s === 401) && right.status === 429 && elsewhere.status === 200;
      });
      await ui.close();
      await codecUi.close();
    });
  } finally {
    await agent.close();
  }
  return report;
}
