/**
 * The refusal matrices (SSRF, forged push calls, cross-tenant calls, credentials, the id space, a
 * hostile agent, a hostile caller): every case refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MATRICES } from './all-matrices';

describe('chaos: refusal matrices', () => {
  for (const [name, matrix] of MATRICES) {
    it(`refuses every ${name} case`, { timeout: 120_000 }, async () => {
      const report = await matrix();
      assert.ok(report.cases >= 10, `${report.cases} cases`);
      assert.deepEqual(report.let_through, []);
      assert.equal(report.refused, report.cases);
    });
  }
});
