/**
 * Inline bytes have totals as well as a per-artifact cap: one snapshot, and one delegation's whole
 * history, keep at most so many bytes of artifacts inline; the rest is stored by reference.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startAgentServer, type DemoAgentDefinition, type RunningAgent } from '../../src/demo/agent-server';
import { artifactEvent, statusEvent } from '../../src/demo/events';
import { executor, openTask, skill } from '../../src/demo/kit';
import type { ArtifactRecord } from '../../src/shared/delegation-types';
import { batonFor, historyBytes, loopbackAgent, withWorker } from '../helpers/temporal';

const KIB = 1024;

/** Two 30 KiB artifacts and a question; after the answer, two more, and done: 120 KiB, each under the per-artifact cap. */
function pileAgent(): DemoAgentDefinition {
  return {
    name: 'pile',
    description: 'Sends many artifacts, each under the inline cap.',
    skills: skill('pile', 'many artifacts'),
    executor: executor(async (ctx, bus) => {
      openTask(ctx, bus);
      const round = ctx.task ? 2 : 1;
      for (const i of [1, 2]) {
        bus.publish(
          artifactEvent(ctx.taskId, ctx.contextId, {
            artifactId: `part-${round}-${i}`,
            name: `part-${round}-${i}`,
            parts: [{ text: String(round * 10 + i).repeat(15 * KIB) }],
          }),
        );
      }
      bus.publish(
        statusEvent(
          ctx.taskId,
          ctx.contextId,
          round === 1 ? 'TASK_STATE_INPUT_REQUIRED' : 'TASK_STATE_COMPLETED',
          round === 1 ? 'more?' : undefined,
        ),
      );
      bus.finished();
    }),
  };
}

const inline = (artifacts: ArtifactRecord[]): number => artifacts.filter((a) => a.parts).reduce((n, a) => n + a.size, 0);

describe('inline totals', () => {
  let agent: RunningAgent;
  before(async () => {
    agent = await startAgentServer(pileAgent());
  });
  after(async () => {
    await agent.close();
  });

  it('stores by reference what would pass the snapshot and delegation totals, the largest first', async () => {
    await withWorker(
      { pile: loopbackAgent(agent.url, { acceptance: 'accept-any', observe: 'poll' }) },
      async (ctx) => {
        const baton = batonFor(ctx);
        const id = await baton.start({ agent: 'pile', parts: [{ text: 'everything' }] });
        const asked = await baton.until(id, (r) => r.pending !== null, 50);
        assert.equal(asked.artifacts.length, 2);
        assert.ok(inline(asked.artifacts) <= 50 * KIB, `one snapshot keeps at most 50 KiB inline (${inline(asked.artifacts)})`);
        assert.equal(asked.artifacts.filter((a) => a.ref).length, 1, 'the other one is stored by reference');
        await baton.answer(id, asked.pending?.requestId ?? '', [{ text: 'yes' }]);
        const done = await baton.result(id);
        assert.equal(done.artifacts.length, 4);
        for (const a of done.artifacts) assert.equal(a.size, 30 * KIB, 'digest and size still describe every artifact');
        assert.ok(inline(done.artifacts) <= 80 * KIB - inline(asked.artifacts), 'what the delegation had inline before counts');
        // Two snapshots of 120 KiB before the totals; within them, about the 80 KiB allowed inline.
        const bytes = await historyBytes(ctx.client, id);
        assert.ok(bytes < 120 * KIB, `history stays small (${bytes} bytes)`);
      },
      {
        artifactsPath: mkdtempSync(join(tmpdir(), 'baton-inline-')),
        inline: { snapshotInlineMaxBytes: 50 * KIB, delegationInlineMaxBytes: 80 * KIB },
      },
    );
  });
});
