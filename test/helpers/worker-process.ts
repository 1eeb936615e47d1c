/**
 * A Baton worker in its own process (`baton worker`), as in production, so a test can SIGKILL it and
 * start another on the same task queue.
 */
import { randomUUID } from 'node:crypto';
import { ensureNamespace, registerSearchAttributes } from '../../src/client/namespace-setup';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { BatonClient } from '../../src/client/baton-client';
import { GraphClient } from '../../src/client/graph-client';
import { CliProcess, userEnv } from '../../infra/cli-process';
import { testServer } from './temporal';

export interface WorkerProcesses {
  /** Starts a worker process and resolves once it polls. */
  start(): Promise<CliProcess>;
  /** The config file the processes share (`baton serve` can run on it too). */
  config: string;
  baton: BatonClient;
  graphs: GraphClient;
  close(): Promise<void>;
}

/**
 * Worker processes for a config naming `agents` (name → loopback URL), on `taskQueue`; `extra` lines
 * are added to the config. With `ownNamespace`, in a namespace of their own (created, with Baton's
 * search attributes): for a test that counts what the whole namespace holds.
 */
export async function workerProcesses(
  agents: Record<string, string>,
  taskQueue: string,
  extra: string[] = [],
  opts: { ownNamespace?: boolean } = {},
): Promise<WorkerProcesses> {
  const server = await testServer();
  const { address } = server;
  const connection = await Connection.connect({ address });
  const namespace = opts.ownNamespace ? `test-${randomUUID()}` : server.namespace;
  if (opts.ownNamespace) {
    await ensureNamespace(connection, namespace, 86_400);
    await registerSearchAttributes(connection, namespace);
  }
  const config = join(mkdtempSync(join(tmpdir(), 'baton-crash-')), 'baton.config.yaml');
  const entries = Object.entries(agents).map(([name, url]) => `  ${name}: { card: "${url}", allowHttp: true, allowPrivateNetwork: true }`);
  writeFileSync(
    config,
    [`temporal: { address: "${address}", namespace: "${namespace}", taskQueue: "${taskQueue}" }`, 'agents:', ...entries, ...extra].join(
      '\n',
    ),
  );
  const caller = { tenant: 'acme', user: 'ops-1' };
  return {
    async start() {
      const worker = new CliProcess(['worker'], userEnv({ BATON_CONFIG: config, BATON_LOG_FORMAT: 'json' }));
      await worker.waitFor('"msg":"worker started"', 'stderr');
      return worker;
    },
    config,
    baton: new BatonClient(connection, { namespace, taskQueue, caller }),
    graphs: new GraphClient(connection, { namespace, taskQueue, caller }),
    close: () => connection.close(),
  };
}

export async function kill(worker: CliProcess): Promise<void> {
  worker.child.kill('SIGKILL');
  assert.equal((await worker.exited).signal, 'SIGKILL');
}
