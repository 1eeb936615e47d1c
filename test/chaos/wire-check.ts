/**
 * What every wire-fault test asserts of its link's reports: every scenario ran, nothing lost,
 * duplicated or wrong, and the link that went down held delegations back (the proxy is in the path).
 */
import assert from 'node:assert/strict';
import type { WireReport } from './wire-faults';

/** The short form's settings: 4 delegations per scenario, faults of 5 s, the link down for 30 s. */
export const SHORT_FORM = { perRun: 4, holdMs: 5_000, settleWithinMs: 120_000, downMs: 30_000 };

export function checkWireReports(reports: WireReport[]): void {
  assert.equal(reports.length, 6, 'every scenario ran');
  for (const r of reports) {
    assert.deepEqual(
      { lost: r.lost, duplicates: r.duplicates, wrongOutcomes: r.wrongOutcomes },
      { lost: 0, duplicates: 0, wrongOutcomes: 0 },
      JSON.stringify(r),
    );
  }
  // Delegations started while the link was down cannot settle before it is back.
  const down = reports.at(-1);
  assert.ok(down && down.settleMs > 0, `the link that went down held delegations back: ${JSON.stringify(down)}`);
  for (const r of reports) console.log(`${r.link}, ${r.scenario}: settled ${r.settleMs} ms after it cleared`);
}
