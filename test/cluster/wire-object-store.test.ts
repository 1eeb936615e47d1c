/**
 * Faults on the wire between the worker and the object store (./object-store-link.ts), short form:
 * every scenario with delegations in flight; nothing lost, no duplicate remote task, no wrong
 * outcome, every artifact whole in the store. `npm run chaos -- --cluster` measures the longer form.
 */
import { it } from 'node:test';
import { checkWireReports, SHORT_FORM } from '../chaos/wire-check';
import { wireScenarios } from '../chaos/wire-faults';
import { objectStoreLinkRuns } from './object-store-link';

it('chaos: worker → object store: every fault on the wire, nothing lost, duplicated or wrong', { timeout: 540_000 }, async () => {
  checkWireReports(await objectStoreLinkRuns(wireScenarios(SHORT_FORM.downMs), SHORT_FORM, (l) => console.log(l)));
});
