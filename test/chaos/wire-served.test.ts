/**
 * Faults on the wire, short form, between A2A callers and a Baton-served gateway: every scenario (latency with jitter, 10 KB/s, a reset
 * mid-response, a half-open link, tiny slices, the link down for 30 s) with delegations in flight.
 * Nothing lost, no duplicate remote task, no wrong outcome. `npm run chaos -- --only wire` measures the
 * longer form for docs/RELIABILITY.md.
 */
import { it } from 'node:test';
import { servedLinkRuns, wireScenarios } from './wire-faults';
import { checkWireReports, SHORT_FORM } from './wire-check';

it('chaos: callers → served agents: every fault on the wire, nothing lost, duplicated or wrong', { timeout: 175_000 }, async () => {
  checkWireReports(await servedLinkRuns(wireScenarios(SHORT_FORM.downMs), SHORT_FORM));
});
