/**
 * Large artifacts: 50 MiB streamed in 1 MiB chunks, straight through (assembled from the stream, not
 * downloaded again), with every artifact event duplicated on the wire (the agent's own copy decides),
 * and with the stream cut midway. The digest is right, the bytes are in the store and history holds
 * only the reference.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FsArtifactStore } from '../../src/artifacts/store';
import { startAgentServer, type AgentServerOptions } from '../../src/demo/agent-server';
import { bulkArchive, chunkByte } from '../../src/demo/simple-agents';
import { executor, skill } from '../../src/demo/kit';
import { Message } from '@a2a-js/sdk';
import { AgentEvent } from '@a2a-js/sdk/server';
import type { ArtifactRecord } from '../../src/shared/delegation-types';
import { batonFor, loopbackAgent, testServer, withWorker } from '../helpers/temporal';
import { runCli, saysOneLine, userEnv } from '../../infra/cli-process';

const CHUNKS = 50;
const MiB = 1024 * 1024;

async function exportArchive(
  server: AgentServerOptions,
): Promise<{ logLines: Record<string, unknown>[]; subscriptions: number; archive?: ArtifactRecord }> {
  const expected = createHash('sha256');
  for (let i = 0; i < CHUNKS; i++) expected.update(Buffer.alloc(MiB, chunkByte(i)));
  const digest = expected.digest('hex');
  let subscriptions = 0;
  const cut = server.cutStream;
  // The export starts once the worker subscribed (plus a moment), so the chunks are streamed live.
  let listening: () => void = () => {};
  const subscribed = new Promise<void>((r) => (listening = () => setTimeout(r, 200)));
  const agent = await startAgentServer(bulkArchive({ chunks: CHUNKS, chunkBytes: MiB, stepMs: 30, startWhen: subscribed }), {
    ...server,
    cutStream: (method) => (method === 'SubscribeToTask' ? (listening(), (subscriptions += 1), cut?.(method) ?? 0) : 0),
  });
  const storeDir = mkdtempSync(join(tmpdir(), 'baton-artifacts-'));
  const logLines: Record<string, unknown>[] = [];
  let archive: ArtifactRecord | undefined;
  try {
    await withWorker(
      { 'bulk-archive': loopbackAgent(agent.url, { observe: 'stream', limits: { maxResponseBytes: 256 * MiB } }) },
      async (ctx) => {
        const baton = batonFor(ctx);
        const id = await baton.start({ agent: 'bulk-archive', parts: [{ text: 'Export the archive' }] });
        const record = await baton.result(id);
        assert.equal(record.outcome?.kind, 'ACCEPTED', JSON.stringify(record.outcome));
        archive = record.artifacts[0];
        assert.equal(archive?.size, CHUNKS * MiB);
        assert.equal(archive?.sha256, digest, 'no chunk appended twice, none missing');
        assert.equal(archive?.ref, `sha256:${digest}`);
        assert.equal(archive?.parts, undefined, 'not inline');
        const stored = await new FsArtifactStore(storeDir).get(`sha256:${digest}`);
        assert.equal(createHash('sha256').update(stored).digest('hex'), digest, 'the store holds the bytes');
        assert.deepEqual(readdirSync(join(storeDir, 'staging')), [], 'no staging leftovers');
        const history = JSON.stringify(await ctx.client.workflow.getHandle(id).fetchHistory());
        assert.ok(history.length < 200_000, `history is ${history.length} characters`);
      },
      { logLines, artifactsPath: storeDir },
    );
  } finally {
    await agent.close();
  }
  return { logLines, subscriptions, archive };
}

describe('large streamed artifacts', () => {
  it('assembles 50 MiB from the stream once and does not download it again', { timeout: 120_000 }, async () => {
    const { logLines, archive } = await exportArchive({});
    assert.ok(
      logLines.some((l) => l.msg === 'artifacts assembled from the stream'),
      'the artifact came from the stream: status read without it',
    );
    assert.deepEqual({ source: archive?.source, repeatedChunks: archive?.repeatedChunks }, { source: 'stream', repeatedChunks: undefined });
  });

  it("lets the agent's own copy decide when every event arrives twice", { timeout: 120_000 }, async () => {
    const { logLines, archive } = await exportArchive({ duplicateArtifactEvents: true });
    assert.ok(logLines.some((l) => l.msg === "the stream repeated chunks; the agent's own copy of the task decided"));
    assert.equal(archive?.source, 'task');
    assert.ok((archive?.repeatedChunks ?? 0) >= CHUNKS / 2, `repeats counted (${archive?.repeatedChunks})`);
  });

  it('gets 50 MiB right when the stream is cut midway', { timeout: 120_000 }, async () => {
    const { logLines, subscriptions } = await exportArchive({ cutStream: () => 800, duplicateArtifactEvents: true });
    assert.ok(subscriptions >= 2, 'cut, then subscribed again');
    assert.ok(logLines.some((l) => l.msg === 'stream broke; reading the task'));
  });
  it('keeps a 300 KiB direct reply out of history, stored by reference', async () => {
    const text = 'lead times '.repeat(28_000);
    const agent = await startAgentServer({
      name: 'chatty-desk',
      description: 'Answers at length, directly',
      skills: skill('answer', 'Answers at length'),
      executor: executor(async (ctx, bus) => {
        bus.publish(
          AgentEvent.message(Message.fromJSON({ messageId: 'reply-1', role: 'ROLE_AGENT', contextId: ctx.contextId, parts: [{ text }] })),
        );
        bus.finished();
      }),
    });
    const storeDir = mkdtempSync(join(tmpdir(), 'baton-artifacts-'));
    try {
      await withWorker(
        { 'chatty-desk': loopbackAgent(agent.url, { acceptance: 'accept-any' }) },
        async (ctx) => {
          const baton = batonFor(ctx);
          const id = await baton.start({ agent: 'chatty-desk', parts: [{ text: 'Tell me everything' }] });
          const record = await baton.result(id);
          const stored = (record.reply?.parts[0]?.data as { storedReply?: { ref: string; size: number } } | undefined)?.storedReply;
          assert.ok(stored, JSON.stringify(record.reply).slice(0, 200));
          const bytes = await new FsArtifactStore(storeDir).get(stored.ref as `sha256:${string}`);
          assert.deepEqual(JSON.parse(bytes.toString('utf8')), [{ text }]);
          const history = JSON.stringify(await ctx.client.workflow.getHandle(id).fetchHistory());
          assert.ok(history.length < 100_000, `history is ${history.length} characters`);

          // `baton artifacts get` gives the bytes to a caller whose tenant holds them, to no other.
          const config = join(storeDir, 'baton.config.yaml');
          const { address } = await testServer();
          writeFileSync(config, `temporal: { address: "${address}", taskQueue: "${ctx.taskQueue}" }\nartifacts: { path: "${storeDir}" }\n`);
          const get = (tenant: string) => runCli(['artifacts', 'get', stored.ref], userEnv({ BATON_CONFIG: config, BATON_TENANT: tenant }));
          const own = await get('acme');
          assert.equal(own.code, 0, own.stderr);
          assert.equal(own.stdout, JSON.stringify([{ text }]));
          saysOneLine(await get('globex'), 1, new RegExp(`^baton: no artifact ${stored.ref} for tenant globex in the store `));
        },
        { artifactsPath: storeDir },
      );
    } finally {
      await agent.close();
    }
  });
});
