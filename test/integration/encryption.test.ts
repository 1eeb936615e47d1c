/**
 * Payload encryption on a real server: with keys configured, the raw history (as `temporal workflow
 * show --output json` prints it, no codec) holds none of the request, the answer, the agent's question
 * or the inline artifact, while Baton's clients read them all; after rotating to a new key the old
 * delegation is still read, and a client without its key says which key it lacks.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import pino from 'pino';
import { batonDataConverter } from '../../src/codec/data-converter';
import { PayloadKeyUnknownError } from '../../src/codec/encryption-codec';
import { FaultAgent } from '../../infra/fault-agent';
import { BatonClient } from '../../src/client/baton-client';
import { ConfigSchema, EncryptionSchema, type BatonConfig, type EncryptionConfig } from '../../src/config/schema';
import { startUi } from '../../src/http/start-ui';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { installTemporalRuntime } from '../../src/runtime/logger';
import { projectCliPaths } from '../../src/runtime/temporal-server';
import { createBatonWorker } from '../../src/runtime/worker';
import { loopbackAgent, testBundle, testServer } from '../helpers/temporal';

const run = promisify(execFile);

process.env.BATON_TEST_KEY_A = randomBytes(32).toString('base64');
process.env.BATON_TEST_KEY_B = randomBytes(32).toString('base64');
const ONLY_A = EncryptionSchema.parse({ currentKey: 'a', keys: { a: { fromEnv: 'BATON_TEST_KEY_A' } } });
const ROTATED = EncryptionSchema.parse({
  currentKey: 'b',
  keys: { a: { fromEnv: 'BATON_TEST_KEY_A' }, b: { fromEnv: 'BATON_TEST_KEY_B' } },
});
const ONLY_B = EncryptionSchema.parse({ currentKey: 'b', keys: { b: { fromEnv: 'BATON_TEST_KEY_B' } } });

/** Every string in the CLI's JSON, with each base64 `data` field also read as text: what a reader of the database sees. */
async function rawHistory(address: string, namespace: string, id: string, codec: string[] = []): Promise<string> {
  const cli = projectCliPaths().find((p) => existsSync(p));
  assert.ok(cli, 'the temporal CLI is installed (npm run setup)');
  const { stdout: json } = await run(
    cli,
    ['workflow', 'show', '--address', address, '--namespace', namespace, '-w', id, '--output', 'json', ...codec],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, TEMPORAL_ADDRESS: address },
    },
  );
  const texts: string[] = [json];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') texts.push(Buffer.from(v, 'base64').toString('utf8'));
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(JSON.parse(json));
  return texts.join('\n');
}

describe('payload encryption', () => {
  let agent: RunningAgent;
  let address: string;
  let namespace: string;
  let native: NativeConnection;
  let connection: Connection;
  before(async () => {
    installTemporalRuntime(pino({ level: 'warn' }, pino.destination(2)));
    agent = await startAgentServer(supplierQa({ workMs: 20 }));
    ({ address, namespace } = await testServer());
    native = await NativeConnection.connect({ address });
    connection = await Connection.connect({ address });
  });
  after(async () => {
    await agent.close();
    await connection.close();
    await native.close();
  });

  /** A worker and a client that share `encryption`, on a task queue of their own. */
  async function withKeys<T>(
    encryption: EncryptionConfig,
    fn: (baton: BatonClient) => Promise<T>,
    agents: Record<string, ReturnType<typeof loopbackAgent>> = {},
  ): Promise<T> {
    const taskQueue = `enc-${randomUUID()}`;
    const config = { agents: { 'supplier-qa': loopbackAgent(agent.url), ...agents }, encryption };
    const worker = await createBatonWorker({
      connection: native,
      namespace,
      taskQueue,
      config,
      logger: pino({ level: 'warn' }),
      workflowBundle: await testBundle(),
    });
    const baton = new BatonClient(connection, {
      namespace,
      taskQueue,
      caller: { tenant: 'acme', user: 'ops-1' },
      dataConverter: batonDataConverter(config),
    });
    return worker.runUntil(fn(baton));
  }

  const request = `Verify inspection report inspection-92 against order A1042 (reference REF-${randomUUID().slice(0, 8)})`;
  let id = '';

  it('keeps the request, the answer, the question and the artifact out of history, and Baton reads them', async () => {
    const serial = `SN-${randomUUID().slice(0, 8).toUpperCase()}`;
    id = await withKeys(ONLY_A, async (baton) => {
      const started = await baton.start({ agent: 'supplier-qa', parts: [{ text: request, mediaType: 'text/plain' }] });
      const waiting = await baton.until(started, (r) => r.pending !== null || r.outcome !== undefined, 50);
      assert.match(waiting.pending?.prompt[0]?.text ?? '', /serial number/, "Baton reads the agent's question");
      await baton.answer(started, `${started}/request-1`, [{ text: serial }]);
      const record = await baton.result(started);
      assert.equal(record.outcome?.kind, 'ACCEPTED');
      // The request itself is the workflow's input: decoded with the same keys, it is there.
      const history = await baton.client.workflow.getHandle(started).fetchHistory();
      const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
      const codec = batonDataConverter({ encryption: ONLY_A })?.payloadCodecs?.[0];
      assert.ok(codec);
      const [decoded] = await codec.decode(input);
      assert.equal((defaultPayloadConverter.fromPayload(decoded as never) as { parts: { text: string }[] }).parts[0]?.text, request);
      assert.match(JSON.stringify(record.artifacts[0]?.parts), new RegExp(serial), 'the inline artifact carries the serial');
      return started;
    });
    const raw = await rawHistory(address, namespace, id);
    assert.match(raw, /binary\/encrypted/, 'the payloads are encrypted');
    for (const secret of [request, serial, 'serial number', 'verdict'])
      assert.ok(!raw.includes(secret), `the raw history holds no "${secret}"`);

    // Rotated to key b (a still listed): the old delegation reads; new payloads name b.
    await withKeys(ROTATED, async (baton) => {
      assert.equal((await baton.show(id)).outcome?.kind, 'ACCEPTED');
      const fresh = await baton.start({ agent: 'supplier-qa', parts: [{ text: `${request} for SN-4471` }] });
      assert.equal((await baton.result(fresh)).outcome?.kind, 'ACCEPTED');
      const history = await rawHistory(address, namespace, fresh);
      assert.match(history, /"encryption-key-id":\s*"Yg=="/, 'written with key b');
      assert.doesNotMatch(history, /"encryption-key-id":\s*"YQ=="/, 'and not with key a');
    });

    // Without key a, reading the old delegation names the key it lacks, in Baton's terms.
    await withKeys(ONLY_B, async (baton) => {
      await assert.rejects(baton.show(id), (err: unknown) => err instanceof PayloadKeyUnknownError && err.keyId === 'a');
    });
  });

  it("keeps an agent's error text out of history: failures are encoded, then encrypted", async () => {
    const quoted = `Order A1042 of customer ${randomUUID().slice(0, 8)} is blocked by its credit limit`;
    const refusing = await new FaultAgent('refusing-desk', { refuseWith: quoted }).start();
    try {
      const failed = await withKeys(
        ONLY_A,
        async (baton) => baton.result(await baton.start({ agent: 'refusing-desk', parts: [{ text: 'Release order A1042' }] })),
        { 'refusing-desk': loopbackAgent(refusing.url) },
      );
      assert.equal(failed.outcome?.kind, 'ERROR');
      assert.match(failed.outcome?.reasons.join(' ') ?? '', new RegExp(quoted), 'Baton reads the reason');
      const raw = await rawHistory(address, namespace, failed.id);
      assert.match(raw, /"message":\s*"Encoded failure"/, 'the activity failure is encoded');
      assert.ok(!raw.includes(quoted), "the agent's text is not in the raw history");
    } finally {
      await refusing.close();
    }
  });

  it('serves a codec server for the Web UI and the temporal CLI, only to a token holder', async () => {
    assert.ok(id, 'the first test left an encrypted delegation');
    const token = randomBytes(18).toString('base64url');
    process.env.BATON_TEST_CODEC_TOKEN = token;
    const webUi = 'http://webui.example:8233';
    const config = ConfigSchema.parse({
      temporal: { address, namespace },
      encryption: { ...ONLY_A, codecServer: { tokensFromEnv: ['BATON_TEST_CODEC_TOKEN'], corsOrigins: [webUi] } },
      api: { listen: { port: 0 } },
    }) as BatonConfig;
    const ui = await startUi(config, address, pino({ level: 'warn' }), { port: 0 });
    try {
      assert.ok(ui.codecUrl, 'the codec server is served');
      const endpoint = ui.codecUrl;
      // What the Web UI has: the raw payloads of the history, as Temporal's JSON gives them.
      const started = (await new Client({ connection, namespace }).workflow.getHandle(id).fetchHistory()).events?.[0];
      const input = started?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
      const body = JSON.stringify({
        payloads: input.map((p) => ({
          metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
          data: Buffer.from(p.data ?? []).toString('base64'),
        })),
      });
      assert.doesNotMatch(body, new RegExp(Buffer.from('inspection-92').toString('base64').slice(0, 12)));
      const post = (path: string, headers: Record<string, string> = {}, content = body) =>
        fetch(`${endpoint}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: content });
      const dataOf = async (res: Response): Promise<string> => {
        assert.equal(res.status, 200);
        const json = (await res.json()) as { payloads: { data: string }[] };
        return json.payloads.map((p) => Buffer.from(p.data, 'base64').toString('utf8')).join('');
      };

      assert.ok((await dataOf(await post('/decode', { Authorization: `Bearer ${token}`, 'X-Namespace': namespace }))).includes(request));
      // The dev Web UI sends no header: the token may be the path segment before /decode.
      assert.ok((await dataOf(await post(`/${token}/decode`))).includes(request));
      for (const refused of [
        await post('/decode'),
        await post('/decode', { Authorization: 'Bearer not-the-codec-token-0000' }),
        await post('/nope-token-000000/decode'),
      ]) {
        assert.equal(refused.status, 401);
        assert.equal(((await refused.json()) as { error: { type: string } }).error.type, 'Unauthorized');
      }
      const otherNamespace = await post('/decode', { Authorization: `Bearer ${token}`, 'X-Namespace': 'someone-else' });
      assert.equal(otherNamespace.status, 400);
      const garbage = await post('/decode', { Authorization: `Bearer ${token}` }, '{"payloads": [{"data": "***"}]}');
      assert.equal(garbage.status, 400);

      // Encode then decode: what a person types in the Web UI goes in encrypted.
      const plain = {
        payloads: [
          { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"hello"').toString('base64') },
        ],
      };
      const encoded = (await (await post('/encode', { Authorization: `Bearer ${token}` }, JSON.stringify(plain))).json()) as typeof plain;
      assert.equal(Buffer.from(encoded.payloads[0]?.metadata.encoding ?? '', 'base64').toString(), 'binary/encrypted');
      assert.equal(await dataOf(await post('/decode', { Authorization: `Bearer ${token}` }, JSON.stringify(encoded))), '"hello"');

      // CORS: the Web UI's origin may call from a browser; another origin gets no permission.
      const preflight = (origin: string) =>
        fetch(`${endpoint}/decode`, {
          method: 'OPTIONS',
          headers: {
            Origin: origin,
            'Access-Control-Request-Method': 'POST',
            'Access-Control-Request-Headers': 'content-type,x-namespace',
          },
        });
      const allowed = await preflight(webUi);
      assert.equal(allowed.status, 204);
      assert.equal(allowed.headers.get('access-control-allow-origin'), webUi);
      assert.match(allowed.headers.get('access-control-allow-headers') ?? '', /X-Namespace/);
      assert.equal((await preflight('http://evil.example')).headers.get('access-control-allow-origin'), null);

      // The temporal CLI reads the history in clear through it, and not without it.
      const throughCodec = await rawHistory(address, namespace, id, ['--codec-endpoint', endpoint, '--codec-auth', `Bearer ${token}`]);
      assert.ok(throughCodec.includes(request), 'temporal workflow show --codec-endpoint shows the request');
      assert.ok(!(await rawHistory(address, namespace, id)).includes(request));
    } finally {
      await ui.close();
    }
  });
});
