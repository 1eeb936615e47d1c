/**
 * Artifact retention on a real server: the worker indexes which delegation names each stored blob,
 * and `baton artifacts gc` removes a blob only once no delegation that named it can be read and it is
 * older than the namespace's retention. Deleting a workflow stands in for retention passing.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { FsArtifactStore, type ArtifactRef } from '../../src/artifacts/store';
import { startAgentServer } from '../../src/demo/agent-server';
import { bulkArchive } from '../../src/demo/simple-agents';
import { collectArtifactsIn } from '../../src/runtime/artifact-gc';
import { runCli, userEnv } from '../../infra/cli-process';
import { batonFor, loopbackAgent, testServer, withWorker } from '../helpers/temporal';

const KiB = 1024;
const DAY = 86_400_000;

/** Removes a workflow as retention would, and waits until the server no longer finds it. */
async function expire(client: Client, id: string): Promise<void> {
  await client.workflowService.deleteWorkflowExecution({ namespace: client.options.namespace, workflowExecution: { workflowId: id } });
  for (;;) {
    try {
      await client.workflow.getHandle(id).describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return;
      throw err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const aged = (store: FsArtifactStore, ref: ArtifactRef, days: number): void => {
  const path = join(store.root, 'sha256', ref.slice(7, 9), ref.slice(7));
  const then = new Date(Date.now() - days * DAY);
  utimesSync(path, then, then);
};

describe('baton artifacts gc', () => {
  it('keeps what a readable delegation names, and removes the rest once past retention', async () => {
    const shared = await startAgentServer(bulkArchive({ chunks: 2, chunkBytes: 100 * KiB, stepMs: 1 }));
    const single = await startAgentServer(bulkArchive({ chunks: 3, chunkBytes: 100 * KiB, stepMs: 1 }));
    const dir = mkdtempSync(join(tmpdir(), 'baton-gc-'));
    const store = new FsArtifactStore(dir);
    const agents = { shared: loopbackAgent(shared.url), single: loopbackAgent(single.url) };
    try {
      await withWorker(
        agents,
        async (ctx) => {
          const baton = batonFor(ctx);
          const run = async (agent: string): Promise<{ id: string; ref: ArtifactRef; card: ArtifactRef }> => {
            const id = await baton.start({ agent, parts: [{ text: 'Export the archive' }] });
            const record = await baton.result(id);
            assert.equal(record.outcome?.kind, 'ACCEPTED', JSON.stringify(record.outcome));
            return { id, ref: record.artifacts[0]?.ref as ArtifactRef, card: `sha256:${record.agent.cardSha256}` };
          };
          const first = await run('shared');
          const second = await run('shared');
          const alone = await run('single');
          assert.equal(first.ref, second.ref, 'the same bytes are one blob');
          assert.notEqual(first.ref, alone.ref);
          assert.deepEqual(await store.holders(first.ref), [first.id, second.id].sort(), 'the worker indexed both holders');
          assert.deepEqual(await store.holders(alone.ref), [alone.id]);
          // The cards the delegations were sent under are kept the same way (decision 0040).
          assert.equal(first.card, second.card);
          assert.deepEqual(await store.holders(first.card), [first.id, second.id].sort(), "the shared agent's card");
          assert.deepEqual(await store.holders(alone.card), [alone.id]);
          const orphanOld = (await store.put(Buffer.from('left by an activity whose result never reached history'))).ref;
          const orphanNew = (await store.put(Buffer.from('stored a moment ago; its delegation is not indexed yet'))).ref;
          aged(store, orphanOld, 30);

          const { address, namespace } = await testServer();
          const connection = ctx.client.connection as never;
          const gc = (apply: boolean) => collectArtifactsIn({ connection, namespace, store, apply });
          const verdicts = async (apply: boolean) => new Map((await gc(apply)).blobs.map((b) => [b.ref, b.verdict]));

          // Every delegation readable: only the old orphan goes, and a dry run removes nothing.
          let seen = await verdicts(false);
          assert.deepEqual(
            [first.ref, alone.ref, orphanOld, orphanNew].map((r) => seen.get(r)),
            ['keep', 'keep', 'remove', 'keep'],
          );
          assert.ok(existsSync(join(dir, 'sha256', orphanOld.slice(7, 9), orphanOld.slice(7))), 'a dry run removes nothing');

          // The CLI says the same, one line per blob and a total (the report this test prints once).
          const config = join(dir, 'baton.config.yaml');
          writeFileSync(config, `temporal: { address: "${address}", namespace: "${namespace}" }\nartifacts: { path: "${dir}" }\n`);
          const cli = await runCli(['artifacts', 'gc'], userEnv({ BATON_CONFIG: config }));
          assert.equal(cli.code, 0, cli.stderr);
          assert.match(cli.stdout, /^artifact store .+: 6 blob\(s\), namespace retention \d+[dhms]$/m);
          const either = [first.id, second.id].sort()[0];
          assert.match(cli.stdout, new RegExp(`keep +${first.ref.slice(0, 23)}….*named by ${either}, which can still be read`));
          assert.match(cli.stdout, new RegExp(`remove +${orphanOld.slice(0, 23)}….*named by no workflow, written 30d ago`));
          assert.match(
            cli.stdout,
            /dry run: 1 blob\(s\), [\d.]+ B, would be removed; kept 5, [\d.]+ KiB\. Run with --apply to remove them\./,
          );
          process.stdout.write(`# baton artifacts gc (dry run):\n${cli.stdout.replace(/^/gm, '#   ')}\n`);

          // One of the two sharing delegations gone, and the lone one: the shared blob stays.
          await expire(ctx.client, first.id);
          await expire(ctx.client, alone.id);
          for (const ref of [first.ref, alone.ref, first.card, alone.card]) aged(store, ref, 30);
          seen = await verdicts(true);
          assert.deepEqual(
            [first.ref, alone.ref, orphanOld, orphanNew, first.card, alone.card].map((r) => seen.get(r)),
            ['keep', 'remove', 'remove', 'keep', 'keep', 'remove'],
          );
          assert.equal(await store.has(alone.ref), false, 'removed with --apply');
          assert.deepEqual(await store.holders(alone.ref), [], 'its references too');
          assert.equal(await store.has(first.ref), true, 'still named by a readable delegation');

          // Both gone: the shared blob goes too; the young orphan still waits for its retention.
          await expire(ctx.client, second.id);
          seen = await verdicts(true);
          assert.equal(seen.get(first.ref), 'remove');
          assert.equal(seen.get(first.card), 'remove', 'the card of delegations no one can read');
          assert.equal(seen.get(orphanNew), 'keep');
          assert.equal(await store.has(first.ref), false);
          assert.equal(await store.has(orphanNew), true);
        },
        { artifactsPath: dir },
      );
    } finally {
      await shared.close();
      await single.close();
    }
  });
});
