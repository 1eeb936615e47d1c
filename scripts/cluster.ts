/**
 * `npm run cluster`: a real Temporal cluster for a person (the cluster tier's): PostgreSQL, the
 * server's services as separate processes, the frontend behind mTLS and the JWT authorizer. Prints
 * the environment that connects Baton to it, then runs until Ctrl-C, and stops everything it started.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster } from '../src/runtime/cluster/cluster';

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-cluster-'));
  const started = Date.now();
  const cluster = await startCluster({ dir, log: (line) => process.stderr.write(`cluster: ${line}\n`) });
  const env = await cluster.env(['default:admin', 'default:worker', 'default:write']);
  process.stderr.write(`cluster: up in ${((Date.now() - started) / 1000).toFixed(1)} s; files in ${dir}\n`);
  process.stdout.write(
    `# Connect Baton to it (the token is valid for an hour; npm run cluster prints a new one when restarted):\n${Object.entries(env)
      .map(([k, v]) => `export ${k}=${JSON.stringify(v)}`)
      .join('\n')}\n`,
  );
  const stop = async () => {
    process.stderr.write('cluster: stopping\n');
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
