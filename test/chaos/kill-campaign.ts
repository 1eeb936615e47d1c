/**
 * Worker crashes and server restarts, measured: delegations to a fault agent (connection drops after
 * task creation, 5xx bursts) while the worker process is SIGKILLed at a random moment and started
 * again, or while the Temporal dev server is stopped and restarted on its SQLite file. Counted: lost
 * delegations, duplicate remote tasks and wrong outcomes, each of which must be 0.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import pino from 'pino';
import { FaultAgent } from '../../infra/fault-agent';
import { BatonClient } from '../../src/client/baton-client';
import { loopbackAgentEntry } from '../../src/config/schema';
import { freePort } from '../../src/runtime/free-port';
import { startTemporal } from '../../src/runtime/temporal-server';
import { createBatonWorker } from '../../src/runtime/worker';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { kill, workerProcesses } from '../helpers/worker-process';

export interface CrashRunReport {
  run: number;
  delegations: number;
  killedAfterMs: number;
  lost: number;
  duplicates: number;
  wrongOutcomes: number;
  tookMs: number;
}

/**
 * A fault agent the runs talk to: transient faults only, so every delegation must end ACCEPTED.
 * `chaos-desk` is polled (its sends return at once); `chaos-stream` streams, so its sends go out on a
 * stream and its tasks are followed by subscription.
 */
export function campaignAgent(seed: number, kind: 'desk' | 'stream' = 'desk'): FaultAgent {
  const streaming = kind === 'stream';
  return new FaultAgent(`chaos-${kind}`, { dropAfterCreate: 0.15, serverErrors: 0.05, burst: 2, workMs: 1_500, seed, streaming });
}

const settleWithin = async (baton: BatonClient, id: string, ms: number): Promise<DelegationRecord | undefined> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)));
  try {
    return await Promise.race([baton.result(id), late]);
  } finally {
    clearTimeout(timer);
  }
};

/** One run: start `perRun` delegations, SIGKILL the worker after a random moment, start another. */
export async function killRun(agent: FaultAgent, run: number, perRun: number, random: () => number): Promise<CrashRunReport> {
  const started = Date.now();
  const before = agent.duplicateTasks;
  const stack = await workerProcesses({ [agent.name]: agent.url }, `chaos-kill-${run}-${randomUUID()}`);
  try {
    const first = await stack.start();
    const ids = await Promise.all(
      Array.from({ length: perRun }, () => stack.baton.start({ agent: agent.name, parts: [{ text: `run ${run}` }] })),
    );
    const killedAfterMs = Math.round(200 + random() * 2_300);
    await new Promise((r) => setTimeout(r, killedAfterMs));
    await kill(first);
    const second = await stack.start();
    const records = await Promise.all(ids.map((id) => settleWithin(stack.baton, id, 150_000)));
    second.child.kill('SIGTERM');
    await second.exited;
    return {
      run,
      delegations: perRun,
      killedAfterMs,
      lost: records.filter((r) => !r).length,
      duplicates: agent.duplicateTasks - before,
      wrongOutcomes: records.filter((r) => r && r.outcome?.kind !== 'ACCEPTED').length,
      tookMs: Date.now() - started,
    };
  } finally {
    await stack.close();
  }
}

export interface RestartReport {
  restarts: number;
  delegations: number;
  lost: number;
  duplicates: number;
  wrongOutcomes: number;
  tookMs: number;
}

/**
 * A dev server of its own on a SQLite file, a worker in this process, `perRun` delegations; while
 * they run the server is stopped and started again on the same file and port, `restarts` times.
 */
export async function restartServerRun(agent: FaultAgent, restarts: number, perRun: number): Promise<RestartReport> {
  const started = Date.now();
  const before = agent.duplicateTasks;
  const dbFile = join(mkdtempSync(join(tmpdir(), 'baton-restart-')), 'temporal.sqlite');
  const port = await freePort();
  let server = await startTemporal({ own: true, port, uiPort: false, dbFile });
  const native = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const taskQueue = `chaos-restart-${randomUUID()}`;
  const worker = await createBatonWorker({
    connection: native,
    namespace: server.namespace,
    taskQueue,
    config: { agents: { [agent.name]: loopbackAgentEntry(agent.url) } },
    logger: pino({ level: 'error' }, pino.destination(2)),
    activityOverrides: { poll: { initialMs: 100, maxMs: 1_000 } },
  });
  const running = worker.run();
  try {
    const baton = new BatonClient(connection, { namespace: server.namespace, taskQueue, caller: { tenant: 'acme', user: 'ops-1' } });
    const ids = await Promise.all(
      Array.from({ length: perRun }, () => baton.start({ agent: agent.name, parts: [{ text: 'survive the restart' }] })),
    );
    for (let i = 0; i < restarts; i++) {
      await new Promise((r) => setTimeout(r, 700));
      await server.stop();
      server = await startTemporal({ own: true, port, uiPort: false, dbFile });
    }
    const records = await Promise.all(ids.map((id) => settleWithin(baton, id, 150_000)));
    return {
      restarts,
      delegations: perRun,
      lost: records.filter((r) => !r).length,
      duplicates: agent.duplicateTasks - before,
      wrongOutcomes: records.filter((r) => r && r.outcome?.kind !== 'ACCEPTED').length,
      tookMs: Date.now() - started,
    };
  } finally {
    worker.shutdown();
    await running.catch(() => {});
    await connection.close();
    await native.close();
    await server.stop();
  }
}
