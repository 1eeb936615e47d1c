/**
 * URL parts downloaded only under the agent's policy, against a real file server on loopback: what is
 * allowed is stored with its digest; a private address, a name that resolves inside, a redirect to a
 * metadata address, an oversize body, a wrong media type, a stall and an unlisted host are refused,
 * each with its typed reason, and the URL is kept.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Lookup } from '../../src/a2a/guarded-fetch';
import { FsArtifactStore } from '../../src/artifacts/store';
import { downloadUrlPart } from '../../src/artifacts/url-download';
import { DownloadPolicySchema } from '../../src/config/schema';
import { startAgentServer } from '../../src/demo/agent-server';
import { artifactEvent, statusEvent } from '../../src/demo/events';
import { closeServer } from '../../src/runtime/listen';
import { executor, openTask, skill } from '../../src/demo/kit';
import { batonFor, loopbackAgent, withWorker } from '../helpers/temporal';

const PNG = Buffer.alloc(1024, 7);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** files.test is this machine; inside.test is a private address. */
const lookup = ((host: string, options: unknown, callback: unknown) => {
  const cb = (typeof options === 'function' ? options : callback) as (
    err: Error | null,
    addresses: { address: string; family: number }[],
  ) => void;
  if (host === 'files.test') return cb(null, [{ address: '127.0.0.1', family: 4 }]);
  if (host === 'inside.test') return cb(null, [{ address: '192.168.1.10', family: 4 }]);
  if (host === 'other.test') return cb(null, [{ address: '127.0.0.1', family: 4 }]);
  return dnsLookup(host, { all: true }, cb as never);
}) as Lookup;

describe('URL part downloads', () => {
  let server: Server;
  let port = 0;
  const store = new FsArtifactStore(mkdtempSync(join(tmpdir(), 'baton-downloads-')));
  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/ok.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      if (req.url === '/big') return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(2 * 1024 * 1024));
      if (req.url === '/page') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
      if (req.url === '/to-metadata') return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      if (req.url === '/to-other') return res.writeHead(302, { location: `http://other.test:${port}/ok.png` }).end();
      if (req.url === '/slow') return; // never answers
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  after(() => closeServer(server));

  const open = DownloadPolicySchema.parse({
    allowedHosts: ['files.test', '127.0.0.1'],
    allowHttp: true,
    allowPrivateNetwork: true,
    maxBytes: 1024 * 1024,
    timeoutMs: 1_000,
  });
  const onlyFiles = DownloadPolicySchema.parse({
    allowedHosts: ['files.test'],
    allowHttp: true,
    allowPrivateNetwork: true,
    timeoutMs: 1_000,
  });
  const strict = DownloadPolicySchema.parse({ allowedHosts: ['files.test', 'inside.test', '10.0.0.5'], allowHttp: true });
  const get = (url: string, policy = open, mediaType?: string) =>
    downloadUrlPart({ url, ...(mediaType ? { mediaType } : {}) }, policy, store, { lookup });

  it('stores an allowed download with its digest', async () => {
    const got = await get(`http://files.test:${port}/ok.png`, open, 'image/png');
    assert.deepEqual(got, {
      url: `http://files.test:${port}/ok.png`,
      ok: true,
      ref: `sha256:${sha(PNG)}`,
      sha256: sha(PNG),
      size: PNG.length,
      mediaType: 'image/png',
    });
    assert.deepEqual(await store.get(`sha256:${sha(PNG)}`), PNG);
  });

  it('refuses each unsafe or unexpected download with a typed reason, keeping the URL', async () => {
    const cases: [string, Awaited<ReturnType<typeof get>>, string, RegExp][] = [
      ['a private address', await get('http://10.0.0.5/file', strict), 'address', /10\.0\.0\.5 is a private address/],
      [
        'a name resolving inside',
        await get(`http://inside.test:${port}/ok.png`, strict),
        'address',
        /inside\.test resolves to 192\.168\.1\.10/,
      ],
      [
        'a redirect to a metadata address',
        await get(`http://files.test:${port}/to-metadata`),
        'redirect',
        /169\.254\.169\.254 is a metadata address/,
      ],
      ['a body over the cap', await get(`http://files.test:${port}/big`), 'too-large', /1048576-byte cap/],
      [
        'a wrong media type',
        await get(`http://files.test:${port}/page`, open, 'image/png'),
        'media-type',
        /served as text\/html, expected image\/png/,
      ],
      ['a stall', await get(`http://files.test:${port}/slow`), 'timeout', /within 1000 ms/],
      ['an unlisted host', await get('https://elsewhere.example/x.png'), 'host-not-allowed', /elsewhere\.example is not in/],
      [
        'a redirect to an unlisted host (at an allowed address)',
        await get(`http://files.test:${port}/to-other`, onlyFiles),
        'host-not-allowed',
        /redirect to http:\/\/other\.test:\d+ refused: other\.test is not in the agent's downloads\.allowedHosts/,
      ],
      [
        'loopback without allowPrivateNetwork',
        await get(`http://files.test:${port}/ok.png`, strict),
        'address',
        /127\.0\.0\.1 is a loopback address/,
      ],
    ];
    for (const [what, got, reason, detail] of cases) {
      assert.equal(got.ok, false, what);
      if (got.ok) continue;
      assert.equal(got.reason, reason, `${what}: ${got.detail}`);
      assert.match(got.detail, detail, what);
      assert.ok(got.url.startsWith('http'), `${what}: the URL is kept`);
    }
  });

  it('records downloads and refusals on the delegation record', async () => {
    const agent = await startAgentServer({
      name: 'file-desk',
      description: 'Answers with files by URL',
      skills: skill('files', 'Sends files by URL'),
      executor: executor(async (ctx, bus) => {
        openTask(ctx, bus);
        const parts = [
          { url: `http://127.0.0.1:${port}/ok.png`, mediaType: 'image/png' },
          { url: `http://127.0.0.1:${port}/to-metadata`, mediaType: 'image/png' },
        ];
        bus.publish(artifactEvent(ctx.taskId, ctx.contextId, { artifactId: 'photos', name: 'photos', parts }));
        bus.publish(statusEvent(ctx.taskId, ctx.contextId, 'TASK_STATE_COMPLETED', 'Here are the photos.'));
        bus.finished();
      }),
    });
    try {
      await withWorker(
        {
          'file-desk': loopbackAgent(agent.url, { downloads: { allowedHosts: ['127.0.0.1'], allowHttp: true, allowPrivateNetwork: true } }),
        },
        async (ctx) => {
          const baton = batonFor(ctx);
          const record = await baton.result(await baton.start({ agent: 'file-desk', parts: [{ text: 'Photos of the damage, please' }] }));
          const downloads = record.artifacts[0]?.downloads ?? [];
          assert.equal(downloads.length, 2);
          assert.deepEqual(downloads[0], {
            url: `http://127.0.0.1:${port}/ok.png`,
            ok: true,
            ref: `sha256:${sha(PNG)}`,
            sha256: sha(PNG),
            size: PNG.length,
            mediaType: 'image/png',
          });
          assert.equal(downloads[1]?.ok, false);
          assert.equal(downloads[1]?.ok === false && downloads[1].reason, 'redirect');
        },
      );
    } finally {
      await agent.close();
    }
  });
});
