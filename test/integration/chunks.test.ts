/**
 * A stream chunk identical to the one before it is ambiguous: an agent repeating a line on purpose,
 * or the same event delivered twice (A2A events carry no sequence number). Neither may lose or add
 * bytes silently: the agent's own copy (GetTask) decides, and the record says which copy it holds.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startAgentServer, type DemoAgentDefinition } from '../../src/demo/agent-server';
import { artifactEvent, statusEvent } from '../../src/demo/events';
import { executor, openTask, skill } from '../../src/demo/kit';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { batonFor, loopbackAgent, withWorker } from '../helpers/temporal';

const KIB = 1024;
const LINE_A = `${'a'.repeat(40 * KIB - 1)}\n`;
const LINE_B = `${'b'.repeat(40 * KIB - 1)}\n`;
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Streams a text artifact line by line, then completes; each chunk is its own event. */
function lines(chunks: string[], startWhen: Promise<void>): DemoAgentDefinition {
  return {
    name: 'liner',
    description: 'Streams lines',
    streaming: true,
    skills: skill('lines', 'lines'),
    executor: executor(async (ctx, bus) => {
      openTask(ctx, bus);
      bus.publish(statusEvent(ctx.taskId, ctx.contextId, 'TASK_STATE_WORKING'));
      await startWhen;
      for (const [i, text] of chunks.entries()) {
        await new Promise((r) => setTimeout(r, 50));
        bus.publish(
          artifactEvent(
            ctx.taskId,
            ctx.contextId,
            { artifactId: `${ctx.taskId}-log`, name: 'log', parts: [{ text, mediaType: 'text/plain' }] },
            { append: i > 0, lastChunk: i === chunks.length - 1 },
          ),
        );
      }
      bus.publish(statusEvent(ctx.taskId, ctx.contextId, 'TASK_STATE_COMPLETED'));
      bus.finished();
    }),
  };
}

async function streamed(chunks: string[], duplicateArtifactEvents: boolean): Promise<DelegationRecord> {
  let listening: () => void = () => {};
  const subscribed = new Promise<void>((r) => (listening = () => setTimeout(r, 200)));
  const agent = await startAgentServer(lines(chunks, subscribed), {
    duplicateArtifactEvents,
    cutStream: (method) => (method === 'SubscribeToTask' ? (listening(), 0) : 0),
  });
  try {
    return await withWorker(
      { liner: loopbackAgent(agent.url, { observe: 'stream', acceptance: 'accept-any', readAfterSendMs: 0 }) },
      async (ctx) => {
        const baton = batonFor(ctx);
        return baton.result(await baton.start({ agent: 'liner', parts: [{ text: 'the log, please' }] }));
      },
      { artifactsPath: mkdtempSync(join(tmpdir(), 'baton-chunks-')) },
    );
  } finally {
    await agent.close();
  }
}

describe('repeated stream chunks', () => {
  it('keeps a line the agent repeats on purpose', async () => {
    const record = await streamed([LINE_A, LINE_A, LINE_B], false);
    const log = record.artifacts[0];
    assert.equal(log?.size, 120 * KIB, 'three lines, the repeated one twice');
    assert.equal(log?.sha256, sha(LINE_A + LINE_A + LINE_B));
    assert.deepEqual({ source: log?.source, repeatedChunks: log?.repeatedChunks }, { source: 'task', repeatedChunks: 1 });
  });

  it('does not append an event delivered twice', async () => {
    const record = await streamed([LINE_A, LINE_B], true);
    const log = record.artifacts[0];
    assert.equal(log?.size, 80 * KIB);
    assert.equal(log?.sha256, sha(LINE_A + LINE_B));
    assert.equal(log?.source, 'task', "the agent's own copy decided");
    assert.ok((log?.repeatedChunks ?? 0) >= 1);
  });

  it('uses what it assembled when nothing was repeated', async () => {
    const record = await streamed([LINE_A, LINE_B], false);
    const log = record.artifacts[0];
    assert.equal(log?.sha256, sha(LINE_A + LINE_B));
    assert.deepEqual({ source: log?.source, repeatedChunks: log?.repeatedChunks }, { source: 'stream', repeatedChunks: undefined });
  });
});
