/**
 * Artifact retention decisions, on an in-memory store: which blobs stay, which go, and that a doubt
 * (an unanswered readability check) removes nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collectArtifacts, holderAndParents } from '../../src/artifacts/gc';
import { refsIn, type ArtifactRef, type CollectableStore, type StoredBlob } from '../../src/artifacts/store';

const DAY = 86_400_000;
const NOW = new Date('2026-12-03T00:00:00Z');
const ref = (c: string): ArtifactRef => `sha256:${c.repeat(64)}`;

function memoryStore(blobs: { ref: ArtifactRef; days: number; holders: string[] }[]) {
  const removed: ArtifactRef[] = [];
  const store: CollectableStore = {
    async *blobs(): AsyncIterable<StoredBlob> {
      for (const b of blobs) yield { ref: b.ref, size: 10, modifiedAt: new Date(NOW.getTime() - b.days * DAY) };
    },
    holders: async (r) => blobs.find((b) => b.ref === r)?.holders ?? [],
    remove: async (r) => void removed.push(r),
  };
  return { store, removed };
}

describe('artifact retention', () => {
  it('names a workflow and the parents its id names', () => {
    assert.deepEqual(holderAndParents('graph-1/node-a'), ['graph-1/node-a', 'graph-1']);
    assert.deepEqual(holderAndParents('a/b/c'), ['a/b/c', 'a/b', 'a']);
    assert.deepEqual(holderAndParents('dlg-1'), ['dlg-1']);
  });

  it('keeps what a readable workflow or its parent names, and young blobs; removes the rest when applied', async () => {
    const { store, removed } = memoryStore([
      { ref: ref('a'), days: 40, holders: ['dlg-live'] },
      { ref: ref('b'), days: 40, holders: ['graph-live/node-x'] },
      { ref: ref('c'), days: 40, holders: ['dlg-gone', 'dlg-live'] },
      { ref: ref('d'), days: 40, holders: ['dlg-gone'] },
      { ref: ref('e'), days: 2, holders: ['dlg-gone'] },
      { ref: ref('f'), days: 40, holders: [] },
    ]);
    const readable = async (id: string) => id === 'dlg-live' || id === 'graph-live';
    const report = await collectArtifacts({ store, readable, retentionMs: 7 * DAY, now: NOW, apply: true });
    assert.deepEqual(
      report.blobs.map((b) => b.verdict),
      ['keep', 'keep', 'keep', 'remove', 'keep', 'remove'],
    );
    assert.match(report.blobs[1]?.reason ?? '', /named by graph-live\/node-x, whose parent graph-live can still be read/);
    assert.match(report.blobs[3]?.reason ?? '', /no workflow that named it can be read \(dlg-gone\), written 40d ago/);
    assert.match(report.blobs[4]?.reason ?? '', /but written within the retention \(2d ago\)/);
    assert.deepEqual(removed, [ref('d'), ref('f')]);
    assert.deepEqual(report.removed, { count: 2, bytes: 20 });
    assert.deepEqual(report.kept, { count: 4, bytes: 40 });
  });

  it('removes nothing on a dry run, and stops when a workflow cannot be checked', async () => {
    const { store, removed } = memoryStore([{ ref: ref('d'), days: 40, holders: ['dlg-gone'] }]);
    const dry = await collectArtifacts({ store, readable: async () => false, retentionMs: DAY, now: NOW });
    assert.equal(dry.removed.count, 1);
    assert.equal(dry.applied, false);
    assert.deepEqual(removed, []);
    const unsure = collectArtifacts({
      store,
      readable: () => Promise.reject(new Error('server unavailable')),
      retentionMs: DAY,
      now: NOW,
      apply: true,
    });
    await assert.rejects(unsure, /server unavailable/);
    assert.deepEqual(removed, []);
  });

  it('finds every reference a result carries into history', () => {
    const found = refsIn({ artifacts: [{ ref: ref('a'), downloads: [{ ok: true, ref: ref('b') }] }], snapshot: { ref: 'not-a-ref' } });
    assert.deepEqual([...found].sort(), [ref('a'), ref('b')]);
  });
});
