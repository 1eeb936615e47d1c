/**
 * Artifacts in an S3-compatible object store (MinIO built from the Go module proxy), shared by
 * `baton worker` processes in different working folders, as on two hosts: a 24 MiB streamed artifact
 * goes up in parts, sealed with the payload keys; the second worker finds it there rather than
 * uploading it again; `baton artifacts get` reads it from either folder. The store stopped midway is
 * waited out; a wrong bucket or an unreachable store is one line each. `npm run test:cluster`.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CreateBucketCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Connection } from '@temporalio/client';
import { BatonClient } from '../../src/client/baton-client';
import { dataConverterOption } from '../../src/codec/data-converter';
import { ConfigSchema } from '../../src/config/schema';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { bulkArchive, chunkByte } from '../../src/demo/simple-agents';
import { startMinio, type RunningMinio } from '../../infra/cluster/minio';
import { freePort } from '../../src/runtime/free-port';
import { startTemporal, type RunningServer } from '../../src/runtime/temporal-server';
import { CliProcess, runCli, saysOneLine, userEnv } from '../../infra/cli-process';

const MiB = 1024 * 1024;
const CHUNKS = 24;
const BUCKET = 'baton-artifacts';
const PREFIX = 'tier/';

describe('artifacts in an S3-compatible object store', () => {
  let dir: string;
  let minio: RunningMinio;
  let server: RunningServer;
  let agent: RunningAgent;
  let connection: Connection;
  let s3: S3Client;
  let env: NodeJS.ProcessEnv;
  let configFile: string;
  let baton: BatonClient;
  const hosts: string[] = [];
  const workers: CliProcess[] = [];
  let digest = '';
  let ref = '';

  const configOf = (bucket: string) => ({
    temporal: { address: server.address },
    caller: { tenant: 'acme', user: 'ops-1' },
    agents: {
      'bulk-archive': {
        card: agent.url,
        allowHttp: true,
        allowPrivateNetwork: true,
        observe: 'stream',
        limits: { maxResponseBytes: 256 * MiB },
      },
    },
    artifacts: {
      store: 's3',
      s3: {
        bucket,
        prefix: PREFIX,
        endpoint: minio.endpoint,
        accessKeyIdFromEnv: 'BATON_TEST_S3_KEY_ID',
        secretAccessKeyFromEnv: 'BATON_TEST_S3_SECRET',
        partSizeBytes: 5 * MiB,
        retryFor: '3s',
      },
    },
    encryption: { currentKey: 'k1', keys: { k1: { fromEnv: 'BATON_TEST_KEY' } } },
  });
  const blobKey = (): string => `${PREFIX}sha256/${digest.slice(0, 2)}/${digest}`;
  const startWorker = async (host: string): Promise<CliProcess> => {
    const worker = new CliProcess(['worker'], env, host);
    workers.push(worker);
    await worker.waitFor('"msg":"worker started"', 'stderr');
    return worker;
  };
  const stopWorker = async (worker: CliProcess): Promise<void> => {
    worker.child.kill('SIGTERM');
    await worker.exited;
  };
  const exportArchive = async (): Promise<string> => baton.start({ agent: 'bulk-archive', parts: [{ text: 'Export the archive' }] });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-object-store-'));
    minio = await startMinio(join(dir, 'minio'), await freePort(), (l) => process.stdout.write(`# ${l}\n`));
    s3 = new S3Client({
      endpoint: minio.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: minio.accessKeyId, secretAccessKey: minio.secretAccessKey },
    });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    server = await startTemporal({ uiPort: false, own: true });
    // Each export starts once a worker subscribed, so the chunks are streamed live (and staged).
    let subscribed: () => void = () => {};
    const nextSubscription = () => new Promise<void>((r) => (subscribed = r));
    agent = await startAgentServer(bulkArchive({ chunks: CHUNKS, chunkBytes: MiB, stepMs: 5, startWhen: nextSubscription }), {
      cutStream: (method) => (method === 'SubscribeToTask' && subscribed(), 0),
    });
    connection = await Connection.connect({ address: server.address });

    const expected = createHash('sha256');
    for (let i = 0; i < CHUNKS; i++) expected.update(Buffer.alloc(MiB, chunkByte(i)));
    digest = expected.digest('hex');
    ref = `sha256:${digest}`;

    configFile = join(dir, 'baton.config.yaml');
    writeFileSync(configFile, JSON.stringify(configOf(BUCKET)));
    env = userEnv({
      BATON_CONFIG: configFile,
      BATON_TEST_S3_KEY_ID: minio.accessKeyId,
      BATON_TEST_S3_SECRET: minio.secretAccessKey,
      BATON_TEST_KEY: randomBytes(32).toString('base64'),
    });
    Object.assign(process.env, { BATON_TEST_KEY: env.BATON_TEST_KEY });
    const config = ConfigSchema.parse(configOf(BUCKET));
    baton = new BatonClient(connection, {
      namespace: 'default',
      taskQueue: 'baton',
      caller: config.caller,
      ...dataConverterOption(config),
    });
    hosts.push(mkdtempSync(join(tmpdir(), 'baton-host-a-')), mkdtempSync(join(tmpdir(), 'baton-host-b-')));
  });

  after(async () => {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    await connection?.close();
    await agent?.close();
    await server?.stop();
    await minio?.stop();
  });

  it('shares a large streamed artifact between workers in two folders, sealed and uploaded in parts', async () => {
    const [hostA, hostB] = hosts as [string, string];
    const workerA = await startWorker(hostA);
    const first = await baton.result(await exportArchive());
    assert.equal(first.outcome?.kind, 'ACCEPTED', JSON.stringify(first.outcome));
    assert.deepEqual({ ref: first.artifacts[0]?.ref, size: first.artifacts[0]?.size }, { ref, size: CHUNKS * MiB });
    await stopWorker(workerA);
    assert.match(workerA.stderr, /artifacts assembled from the stream/, 'streamed, staged on host A, then uploaded');

    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: blobKey() }));
    assert.match(head.ETag ?? '', /-5"?$/, 'uploaded in 5 parts of 5 MiB');
    assert.equal(head.Metadata?.['baton-key-id'], 'k1', 'sealed with the current key');
    const raw = Buffer.from(
      await ((await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: blobKey() }))).Body?.transformToByteArray() ?? []),
    );
    assert.equal(raw.length, CHUNKS * MiB + 28, 'iv and tag around the ciphertext');
    assert.notEqual(createHash('sha256').update(raw).digest('hex'), digest, 'the store holds no plain bytes');
    assert.ok(!raw.includes(Buffer.alloc(64, chunkByte(3))), 'no run of a chunk in the clear');
    assert.ok(!existsSync(join(hostA, '.baton', 'artifacts', 'sha256')), 'nothing stored on host A');
    const staging = join(hostA, '.baton', 'artifacts', 'staging');
    assert.ok(!existsSync(staging) || readdirSync(staging).length === 0, 'no staging leftovers');

    // Host B exports the same archive: the blob is found in the store and renewed, not uploaded again.
    const workerB = await startWorker(hostB);
    const second = await baton.result(await exportArchive());
    assert.equal(second.artifacts[0]?.ref, ref);
    const renewed = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: blobKey() }));
    assert.ok(renewed.Metadata?.['baton-renewed'], 'host B found the blob host A stored');
    assert.equal(renewed.ContentLength, head.ContentLength, 'the same bytes, copied onto themselves');

    // Either host reads it whole, opened with the key and checked against its digest.
    for (const host of [hostA, hostB]) {
      const got = await runCli(['artifacts', 'get', ref, '--output', join(host, 'archive.bin')], env, host);
      assert.equal(got.code, 0, got.stderr);
      assert.equal(
        createHash('sha256')
          .update(readFileSync(join(host, 'archive.bin')))
          .digest('hex'),
        digest,
      );
    }
    await stopWorker(workerB);

    // baton ui in a third folder serves the bytes over the HTTP API, from the store both workers share.
    const ui = new CliProcess(['ui', '--port', '0'], env, mkdtempSync(join(tmpdir(), 'baton-host-ui-')));
    workers.push(ui);
    await ui.waitFor('Sign in as');
    const signIn = /(http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)/.exec(ui.stdout);
    assert.ok(signIn, ui.stdout);
    const content = await fetch(
      `${signIn[1]}/api/v1/delegations/${encodeURIComponent(second.id)}/artifacts/${encodeURIComponent(second.artifacts[0]?.artifactId ?? '')}/content`,
      { headers: { Authorization: `Bearer ${signIn[2]}` } },
    );
    assert.equal(content.status, 200);
    assert.equal(
      createHash('sha256')
        .update(Buffer.from(await content.arrayBuffer()))
        .digest('hex'),
      digest,
    );
    await stopWorker(ui);

    // Garbage collection reads the store's reference index: both delegations hold the blob, and the
    // agent's card they were sent under (decision 0040).
    const gc = await runCli(['artifacts', 'gc', '--json'], env, hostB);
    assert.equal(gc.code, 0, gc.stderr);
    const report = JSON.parse(gc.stdout) as { store: string; blobs: { ref: string; verdict: string; holders: string[] }[] };
    assert.match(report.store, /^s3:\/\/baton-artifacts\/tier\//);
    const card = `sha256:${second.agent.cardSha256}`;
    assert.deepEqual(
      report.blobs.map((b) => [b.ref, b.verdict]).sort(),
      [
        [ref, 'keep'],
        [card, 'keep'],
      ].sort(),
    );
    const holders = report.blobs.find((b) => b.ref === card)?.holders ?? [];
    assert.ok(holders.includes(first.id) && holders.includes(second.id), `the card's holders: ${holders.join(', ')}`);
  });

  it('waits out an object store outage and loses nothing', async () => {
    // A bucket of its own, so the blob is not there yet and must go up after the outage.
    const other = join(dir, 'other.yaml');
    writeFileSync(other, JSON.stringify(configOf(`${BUCKET}-2`)));
    const setup = await runCli(['setup'], { ...env, BATON_CONFIG: other });
    assert.equal(setup.code, 0, setup.stderr);
    assert.match(setup.stdout, /^artifact store s3:\/\/baton-artifacts-2\/tier\/ at http:\S+: created the bucket$/m);
    assert.match((await runCli(['setup'], { ...env, BATON_CONFIG: other })).stdout, /: the bucket is there$/m);
    const onOther = new CliProcess(['worker'], { ...env, BATON_CONFIG: other }, hosts[1]);
    workers.push(onOther);
    await onOther.waitFor('"msg":"worker started"', 'stderr');

    await minio.stop();
    const id = await exportArchive();
    await onOther.waitFor('artifact store unavailable, retrying', 'stderr');
    assert.equal((await baton.show(id)).outcome, undefined, 'the delegation is still running');
    await minio.start();
    const record = await baton.result(id);
    assert.equal(record.outcome?.kind, 'ACCEPTED', JSON.stringify(record.outcome));
    assert.equal(record.artifacts[0]?.ref, ref);
    const head = await s3.send(new HeadObjectCommand({ Bucket: `${BUCKET}-2`, Key: blobKey() }));
    assert.equal(head.ContentLength, CHUNKS * MiB + 28);
    await stopWorker(onOther);
  });

  it('says in one line what is wrong with a missing bucket, an unreachable store, a bad ref', async () => {
    const missing = join(dir, 'missing.yaml');
    writeFileSync(missing, JSON.stringify(configOf('no-such-bucket')));
    const worker = await runCli(['worker'], { ...env, BATON_CONFIG: missing }, hosts[0]);
    saysOneLine(
      worker,
      1,
      /^baton: artifact store s3:\/\/no-such-bucket\/tier\/ at http:\S+ refused Baton \(NoSuchBucket\): check artifacts\.s3/,
    );

    saysOneLine(await runCli(['artifacts', 'get', 'sha256:abc'], env, hosts[0]), 2, /^baton: sha256:abc is not an artifact reference/);

    // A sealed blob read without encryption, and a blob altered in the store: one line each.
    const plain = join(dir, 'plain.yaml');
    const { encryption: _sealed, ...unsealed } = configOf(BUCKET);
    writeFileSync(plain, JSON.stringify(unsealed));
    saysOneLine(
      await runCli(['artifacts', 'get', ref, '--output', join(dir, 'x')], { ...env, BATON_CONFIG: plain }, hosts[0]),
      1,
      /^baton: artifact sha256:\S+ is sealed with key "k1", and encryption is off: configure encryption with that key$/,
    );
    await s3.send(new PutObjectCommand({ Bucket: `${BUCKET}-2`, Key: blobKey(), Body: 'not the archive' }));
    saysOneLine(
      await runCli(['artifacts', 'get', ref, '--output', join(dir, 'x')], { ...env, BATON_CONFIG: join(dir, 'other.yaml') }, hosts[0]),
      1,
      /^baton: artifact sha256:\S+ in the store is not what was stored \(its digest differs\); restore it from a backup$/,
    );
    await minio.stop();
    try {
      saysOneLine(
        await runCli(['artifacts', 'get', ref, '--output', join(dir, 'x')], env, hosts[0]),
        1,
        /^baton: artifact store s3:\/\/baton-artifacts\/tier\/ at http:\S+ is unreachable \(ECONNREFUSED\)/,
      );
    } finally {
      await minio.start();
    }
  });
});
