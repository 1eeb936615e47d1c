/**
 * The fuzzing campaign's short form: every boundary, a few hundred cases each; none may crash or let
 * invalid input through. `npm run chaos` runs 10,000 per boundary for docs/RELIABILITY.md.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fuzzBoundaries } from './fuzz';

describe('chaos: fuzzing every boundary', () => {
  it('has no crash and no false success at any boundary', async () => {
    const reports = await fuzzBoundaries(400);
    assert.equal(reports.length, 8);
    for (const r of reports) {
      assert.equal(r.cases, 400, r.boundary);
      assert.deepEqual(
        { boundary: r.boundary, crashes: r.crashes, falseSuccesses: r.falseSuccesses, examples: r.examples },
        { boundary: r.boundary, crashes: 0, falseSuccesses: 0, examples: [] },
      );
      assert.ok(
        r.refused > 0 && r.accepted > 0,
        `${r.boundary}: the generators reach both sides (${r.accepted} accepted, ${r.refused} refused)`,
      );
    }
  });
});
