import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ArtifactAssembly } from '../../src/artifacts/assembly';
import { contentOf, recordArtifact } from '../../src/artifacts/digest';
import { FsArtifactStore } from '../../src/artifacts/store';

const chunk = (text: string, append: boolean, lastChunk = false) => ({
  taskId: 't',
  contextId: 'c',
  append,
  lastChunk,
  artifact: { artifactId: 'a1', name: 'report', parts: [{ text, mediaType: 'text/plain' }] },
});
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const store = () => new FsArtifactStore(mkdtempSync(join(tmpdir(), 'baton-store-')));

describe('artifact store and assembly', () => {
  it('stores by content: the same bytes once, the reference names the digest', async () => {
    const s = store();
    const a = await s.put(Buffer.from('hello'));
    const b = await s.put(Buffer.from('hello'));
    assert.deepEqual(a, b);
    assert.equal(a.ref, `sha256:${sha('hello')}`);
    assert.equal((await s.get(a.ref)).toString(), 'hello');
    await assert.rejects(s.get('sha256:../../etc/passwd' as never), /not an artifact reference/);
  });

  it('keeps large artifacts out of history, by reference', async () => {
    const s = store();
    const big = 'x'.repeat(70 * 1024);
    const record = await recordArtifact({ artifactId: 'a', name: 'log', parts: [{ text: big }] }, { store: s });
    assert.equal(record.parts, undefined);
    assert.equal(record.ref, `sha256:${sha(big)}`);
    assert.equal(record.size, big.length);
    const small = await recordArtifact({ artifactId: 'b', parts: [{ text: 'ok' }] }, { store: s });
    assert.deepEqual(small.parts, [{ text: 'ok' }]);
    assert.equal(small.ref, undefined);
    assert.equal(
      contentOf([{ raw: Buffer.from('ab').toString('base64') }, { raw: Buffer.from('c').toString('base64') }]).toString(),
      'abc',
    );
  });

  it("appends a chunk identical to the one before once and counts it, for the agent's copy to decide", async () => {
    const s = store();
    const asm = new ArtifactAssembly(s, 'd1/t');
    await asm.chunk(chunk('one ', false));
    await asm.chunk(chunk('two ', true));
    await asm.chunk(chunk('two ', true)); // the same event again
    await asm.chunk(chunk('three', true, true));
    await asm.chunk(chunk('three', true, true)); // after lastChunk
    assert.deepEqual(asm.repeats, new Map([['a1', 2]]));
    assert.equal(asm.bytesAsSent, 13 + 4 + 5, 'what the agent may hold: every repeated chunk counted');
    const done = (await asm.completed(0)).get('a1');
    assert.equal(done?.sha256, sha('one two three'));
    assert.equal(done?.size, 13);
    assert.deepEqual({ source: done?.source, repeatedChunks: done?.repeatedChunks }, { source: 'stream', repeatedChunks: 2 });
  });

  it('resumes after an activity retry from the agent snapshot, without double-appending', async () => {
    const s = store();
    const first = new ArtifactAssembly(s, 'd1/t');
    await first.chunk(chunk('one ', false));
    await first.chunk(chunk('two ', true));
    // The worker dies here. The retried attempt subscribes again; the stream starts with the task as
    // the agent has it (both chunks so far), then goes on.
    const retry = new ArtifactAssembly(s, 'd1/t');
    await retry.snapshot([{ artifactId: 'a1', name: 'report', parts: [{ text: 'one ' }, { text: 'two ' }] }]);
    await retry.chunk(chunk('three', true, true));
    assert.equal((await retry.completed(0)).get('a1')?.sha256, sha('one two three'));
    assert.equal(retry.allComplete, true);
  });
});
