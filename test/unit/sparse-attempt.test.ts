/**
 * How long one attempt of a sparse read lasts (decision 0041): the workflow's timeout and the
 * activity's held reads agree, and an attempt scheduled by an older workflow holds none.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  heldReads,
  heldReadsWithin,
  MAX_HELD_READS,
  sparseAttemptTimeoutMs,
  SPARSE_READ_TIMEOUT_MS,
} from '../../src/shared/sparse-attempt';

describe('sparse attempts', () => {
  it('holds the reads that fit the span after the first, up to a ceiling', () => {
    assert.equal(heldReads(60_000), 4, 'every minute, a 5-minute span: the first read and four held');
    assert.equal(heldReads(300_000), 0, 'a read every 5 minutes: one per attempt, as before');
    assert.equal(heldReads(900_000), 0);
    assert.equal(heldReads(1_000), MAX_HELD_READS, 'a read every second is held at most 59 times');
    assert.equal(heldReads(300, 900), 2, 'a span of its own');
    assert.equal(heldReads(0), 0);
    assert.equal(heldReads(Number.NaN), 0);
  });

  it('gives the attempt room for its held reads, and a lone read its 30 s', () => {
    assert.equal(sparseAttemptTimeoutMs(60_000), 4 * 60_000 + 60_000);
    assert.equal(sparseAttemptTimeoutMs(600_000), SPARSE_READ_TIMEOUT_MS);
    assert.equal(sparseAttemptTimeoutMs(300, 900), 2 * 300 + 60_000);
  });

  it('holds reads only when the attempt was scheduled with room for them', () => {
    assert.equal(heldReadsWithin(60_000, sparseAttemptTimeoutMs(60_000)), 4);
    assert.equal(heldReadsWithin(60_000, SPARSE_READ_TIMEOUT_MS), 0, 'scheduled by an older workflow: reads once');
    assert.equal(heldReadsWithin(300, sparseAttemptTimeoutMs(300, 900), 900), 2);
    assert.equal(heldReadsWithin(300, sparseAttemptTimeoutMs(300, 900)), 0, 'a span the timeout has no room for holds none');
  });
});
