/**
 * `npm run cluster`: a real Temporal cluster for a person (the cluster tier's): PostgreSQL, the
 * server's services as separate processes, the frontend behind mTLS and the JWT authorizer, and MinIO
 * for artifacts. Prints the environment that connects Baton to them (with a fresh payload key), then
 * runs until Ctrl-C, and stops everything it started.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3ArtifactStore } from '../src/artifacts/s3-store';
import { S3StoreSchema } from '../src/config/schema';
import { startCluster } from '../infra/cluster/cluster';
import { startMinio } from '../infra/cluster/minio';
import { freePort } from '../src/runtime/free-port';

/** What to put in baton.config.yaml to use the printed variables. */
const CONFIG = `# In baton.config.yaml, to keep artifacts in this MinIO and encrypt payloads:
#   artifacts:
#     store: s3
#     s3: { bucket: baton-artifacts, endpoint: "\${BATON_S3_ENDPOINT}", accessKeyIdFromEnv: BATON_S3_ACCESS_KEY_ID, secretAccessKeyFromEnv: BATON_S3_SECRET_ACCESS_KEY }
#   encryption: { currentKey: k1, keys: { k1: { fromEnv: BATON_KEY_K1 } } }`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-cluster-'));
  const started = Date.now();
  const cluster = await startCluster({ dir, log: (line) => process.stderr.write(`cluster: ${line}\n`) });
  const minio = await startMinio(join(dir, 'minio'), await freePort(), (line) => process.stderr.write(`cluster: ${line}\n`)).catch(
    async (err: unknown) => {
      await cluster.stop();
      throw err;
    },
  );
  const s3 = {
    BATON_S3_ENDPOINT: minio.endpoint,
    BATON_S3_ACCESS_KEY_ID: minio.accessKeyId,
    BATON_S3_SECRET_ACCESS_KEY: minio.secretAccessKey,
  };
  Object.assign(process.env, s3);
  await new S3ArtifactStore({
    config: S3StoreSchema.parse({
      bucket: 'baton-artifacts',
      endpoint: minio.endpoint,
      accessKeyIdFromEnv: 'BATON_S3_ACCESS_KEY_ID',
      secretAccessKeyFromEnv: 'BATON_S3_SECRET_ACCESS_KEY',
    }),
    stagingDir: join(dir, 'staging'),
  }).ensureBucket();
  const env = {
    ...(await cluster.env(['default:admin', 'default:worker', 'default:write'])),
    ...s3,
    BATON_KEY_K1: randomBytes(32).toString('base64'),
  };
  process.stderr.write(`cluster: up in ${((Date.now() - started) / 1000).toFixed(1)} s; files in ${dir}\n`);
  process.stdout.write(
    `# Connect Baton to it (the token is valid for an hour; npm run cluster prints a new one when restarted):\n${Object.entries(env)
      .map(([k, v]) => `export ${k}=${JSON.stringify(v)}`)
      .join('\n')}\n${CONFIG}\n`,
  );
  const stop = async () => {
    process.stderr.write('cluster: stopping\n');
    await minio.stop();
    await cluster.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

void main().catch((err: unknown) => {
  process.stderr.write(`cluster: ${(err as Error).message}\n`);
  process.exit(1);
});
