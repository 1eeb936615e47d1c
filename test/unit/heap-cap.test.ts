/**
 * When `baton` runs again with a heap cap (src/cli/heap-cap.ts): only a worker, only without a heap
 * flag of Node's, with the cap `--max-heap` or its variable gives.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MAX_HEAP_MIB, MAX_HEAP_ENV, decideHeap, parseMaxHeap } from '../../src/cli/heap-cap';

const relaunch = (maxHeapMiB: number) => ({ kind: 'relaunch', maxHeapMiB });
const here = { kind: 'here' };

describe('the worker heap cap', () => {
  it('a worker runs again with the default cap; other commands run here', () => {
    assert.deepEqual(decideHeap(['worker'], [], {}), relaunch(DEFAULT_MAX_HEAP_MIB));
    assert.deepEqual(decideHeap(['-c', 'worker', 'ls'], [], {}), here, 'a config file named worker is not the command');
    assert.deepEqual(decideHeap(['--config', 'x.yaml', 'worker', '--build-id', 'b1'], [], {}), relaunch(DEFAULT_MAX_HEAP_MIB));
    for (const args of [['dev'], ['ls', 'worker'], ['--help'], []]) assert.deepEqual(decideHeap(args, [], {}), here, args.join(' '));
  });

  it('--max-heap, then its variable, set the cap; 0 runs here', () => {
    assert.deepEqual(decideHeap(['worker', '--max-heap', '384'], [], { [MAX_HEAP_ENV]: '128' }), relaunch(384));
    assert.deepEqual(decideHeap(['worker', '--max-heap=512'], [], {}), relaunch(512));
    assert.deepEqual(decideHeap(['worker'], [], { [MAX_HEAP_ENV]: '128' }), relaunch(128));
    assert.deepEqual(decideHeap(['worker', '--max-heap', '0'], [], {}), here);
  });

  it("a heap flag given to Node wins, and a bad value is left to the command line's check", () => {
    assert.deepEqual(decideHeap(['worker'], ['--max-old-space-size=300'], {}), here);
    assert.deepEqual(decideHeap(['worker'], [], { NODE_OPTIONS: '--enable-source-maps --max-old-space-size=300' }), here);
    assert.deepEqual(decideHeap(['worker'], [], { NODE_OPTIONS: '--enable-source-maps' }), relaunch(DEFAULT_MAX_HEAP_MIB));
    for (const bad of ['10', '63', 'lots', '-1', '1.5', '']) {
      assert.equal(parseMaxHeap(bad), undefined, bad);
      assert.deepEqual(decideHeap(['worker', '--max-heap', bad], [], {}), here, bad);
    }
    assert.equal(parseMaxHeap('64'), 64);
  });
});
