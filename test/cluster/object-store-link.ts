/**
 * Faults on the wire between the worker and the object store: Toxiproxy in front of MinIO (built from
 * the Go module proxy), the worker's `artifacts.s3.endpoint` on the proxy, an agent that streams a
 * 200 KB artifact per task (stored by reference, so every delegation uploads). Each fault goes on
 * both directions of the link (uploads are what the worker sends). Used by the cluster tier and by
 * `npm run chaos -- --cluster`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { FaultAgent } from '../../infra/fault-agent';
import { startMinio } from '../../infra/cluster/minio';
import { startToxiproxy, type Faultable, type ProxiedLink, type Toxic } from '../../infra/toxiproxy';
import { ArtifactsSchema, loopbackAgentEntry } from '../../src/config/schema';
import { freePort } from '../../src/runtime/free-port';
import { batonFor, withWorker } from '../helpers/temporal';
import { accepted, faultRun, type WireOptions, type WireReport, type WireScenario } from '../chaos/wire-faults';

const BUCKET = 'baton-wire';
const PREFIX = 'wire/';

/** A fault on both directions of one link: what the worker uploads and what the store answers. */
class BothWays implements Faultable {
  constructor(private readonly link: ProxiedLink) {}
  async add(name: string, toxic: Toxic): Promise<void> {
    await this.link.add(`${name}-up`, { ...toxic, stream: 'upstream' });
    await this.link.add(`${name}-down`, { ...toxic, stream: 'downstream' });
  }
  async remove(name: string): Promise<void> {
    await this.link.remove(`${name}-up`);
    await this.link.remove(`${name}-down`);
  }
  setEnabled(enabled: boolean): Promise<void> {
    return this.link.setEnabled(enabled);
  }
}

/**
 * Every scenario in turn on the worker's link to the object store; checks that every delegation's
 * artifact went by reference and is whole in the store, then resolves with the reports.
 */
export async function objectStoreLinkRuns(
  scenarios: WireScenario[],
  opts: WireOptions,
  log: (line: string) => void,
): Promise<WireReport[]> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-wire-store-'));
  const minio = await startMinio(join(dir, 'minio'), await freePort(), log);
  const toxiproxy = await startToxiproxy();
  const agent = new FaultAgent('wire-archive', { workMs: 1_500, seed: 11, streaming: true, artifactBytes: 200_000 });
  try {
    const s3 = new S3Client({
      endpoint: minio.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: minio.accessKeyId, secretAccessKey: minio.secretAccessKey },
    });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    const link = await toxiproxy.link('object-store', minio.endpoint.replace('http://', ''));
    await agent.start();
    Object.assign(process.env, { BATON_TEST_WIRE_S3_ID: minio.accessKeyId, BATON_TEST_WIRE_S3_SECRET: minio.secretAccessKey });
    const artifacts = ArtifactsSchema.parse({
      store: 's3',
      path: join(dir, 'staging'),
      inlineMaxBytes: 16 * 1024,
      s3: {
        bucket: BUCKET,
        prefix: PREFIX,
        endpoint: link.url,
        accessKeyIdFromEnv: 'BATON_TEST_WIRE_S3_ID',
        secretAccessKeyFromEnv: 'BATON_TEST_WIRE_S3_SECRET',
      },
    });
    const refs: { ref: string; size: number }[] = [];
    const reports = await withWorker(
      { 'wire-archive': loopbackAgentEntry(agent.url, { observe: 'auto' }) },
      async (ctx) => {
        const baton = batonFor(ctx);
        const out: WireReport[] = [];
        for (const scenario of scenarios) {
          out.push(
            await faultRun(
              'worker → object store',
              new BothWays(link),
              scenario,
              opts,
              (i) => baton.start({ agent: 'wire-archive', parts: [{ text: `wire ${scenario.name} ${i}` }] }),
              async (id) => {
                const ok = await accepted(baton, id);
                const artifact = (await baton.show(id)).artifacts[0];
                if (artifact?.ref) refs.push({ ref: artifact.ref, size: artifact.size });
                return ok;
              },
              () => agent.duplicateTasks,
            ),
          );
        }
        return out;
      },
      { artifacts },
    );
    // Every delegation's artifact went by reference, and is in the store whole.
    assert.equal(refs.length, reports.length * opts.perRun, 'every artifact stored by reference');
    for (const { ref, size } of refs) {
      const hex = ref.replace(/^sha256:/, '');
      const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}sha256/${hex.slice(0, 2)}/${hex}` }));
      assert.equal(head.ContentLength, size, `${ref} whole in the store`);
    }
    return reports;
  } finally {
    await agent.close();
    await toxiproxy.stop();
    await minio.stop();
  }
}
