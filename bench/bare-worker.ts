/**
 * A worker process for the bare workflow alone, so the burst can read its CPU time as it reads a
 * `baton worker`'s: `node lib/bench/bare-worker.js <address> <namespace> <task queue>` (an empty
 * address: the environment's, as on the cluster).
 */
import { Worker } from '@temporalio/worker';
import pino from 'pino';
import { connectTemporalWorker } from '../src/runtime/connect';
import { installTemporalRuntime } from '../src/runtime/logger';
import * as activities from './activities';

async function main(): Promise<void> {
  const [address, namespace, taskQueue] = process.argv.slice(2);
  installTemporalRuntime(pino({ level: 'error' }, pino.destination(2)));
  const connection = await connectTemporalWorker(address ? address : {});
  const worker = await Worker.create({
    connection,
    namespace: namespace ?? 'default',
    taskQueue: taskQueue ?? 'bench-bare',
    workflowsPath: require.resolve('./workflows'),
    activities,
    // The workflow cache a `baton worker` has as shipped (worker.maxCachedWorkflows), for a like-for-like burst.
    maxCachedWorkflows: 100,
  });
  process.once('SIGTERM', () => worker.shutdown());
  process.stderr.write('bare worker started\n');
  await worker.run();
  await connection.close();
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bare worker failed: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
