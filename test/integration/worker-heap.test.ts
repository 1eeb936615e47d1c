/**
 * `baton worker` caps its V8 heaps by running again with `--max-old-space-size` (src/cli/heap-cap.ts):
 * the worker that polls is the capped child, signals reach it once, it ends with its parent, and a
 * heap flag given to Node is used as it is.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { CliProcess, alive, userEnv } from '../../infra/cli-process';
import { testServer } from '../helpers/temporal';

/** The "worker started" line: its process and each heap's limit. */
async function started(worker: CliProcess): Promise<{ pid: number; heapLimitMiB: number }> {
  await worker.waitFor('"msg":"worker started"', 'stderr');
  const line = worker.logs().find((l) => l.msg === 'worker started');
  assert.ok(line, worker.stderr);
  return { pid: Number(line.pid), heapLimitMiB: Number(line.heapLimitMiB) };
}

/** Resolves once `pid` is gone; fails after `ms`. (No event tells another process's end.) */
async function gone(pid: number, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (alive(pid)) {
    assert.ok(Date.now() < until, `process ${pid} still runs`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the worker heap cap', () => {
  let config: string;
  before(async () => {
    const { address } = await testServer();
    config = join(mkdtempSync(join(tmpdir(), 'baton-heap-')), 'baton.config.yaml');
    writeFileSync(config, `temporal: { address: "${address}", taskQueue: "heap-${Date.now()}" }\n`);
  });

  it('runs capped in a child, which a SIGTERM stops gracefully through the parent', async () => {
    const worker = new CliProcess(['worker', '--max-heap', '200'], userEnv({ BATON_CONFIG: config }));
    const { pid, heapLimitMiB } = await started(worker);
    assert.notEqual(pid, worker.child.pid, 'the worker is a child of the command');
    // V8's limit is the old space's cap plus the young generation's.
    assert.ok(heapLimitMiB >= 200 && heapLimitMiB < 300, `heap limit ${heapLimitMiB} MiB`);
    worker.child.kill('SIGTERM');
    assert.deepEqual(await worker.exited, { code: 0, signal: null });
    assert.equal(alive(pid), false, 'the child ended before its parent');
    assert.ok(
      worker.logs().some((l) => l.msg === 'Worker state changed' && l.state === 'STOPPED'),
      `the worker shut down gracefully:\n${worker.stderr}`,
    );
  });

  it('ends with a parent killed outright', async () => {
    const worker = new CliProcess(['worker'], userEnv({ BATON_CONFIG: config }));
    const { pid, heapLimitMiB } = await started(worker);
    assert.ok(heapLimitMiB < 400, `default cap: heap limit ${heapLimitMiB} MiB`);
    worker.child.kill('SIGKILL');
    await worker.exited;
    await gone(pid);
  });

  it('uses a heap flag given to Node, in its own process', async () => {
    const worker = new CliProcess(['worker'], userEnv({ BATON_CONFIG: config, NODE_OPTIONS: '--max-old-space-size=320' }));
    const { pid, heapLimitMiB } = await started(worker);
    assert.equal(pid, worker.child.pid);
    assert.ok(heapLimitMiB >= 320 && heapLimitMiB < 420, `heap limit ${heapLimitMiB} MiB`);
    worker.child.kill('SIGTERM');
    assert.equal((await worker.exited).code, 0);
  });
});
