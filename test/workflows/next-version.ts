/**
 * Baton's workflows as a next release might ship them, for the upgrade test: one real change to
 * `delegationWorkflow` (it writes a memo before anything else), deliberately without `patched()`, so
 * a delegation started on the previous build would fail to replay here. Worker Versioning keeps those
 * on their own build; the test shows both. (Graphs are left out: the test delegates only.)
 */
import { upsertMemo } from '@temporalio/workflow';
import { delegationWorkflow as previous } from '../../workflows/api';
import type { DelegationInput, DelegationRecord } from '../../src/shared/delegation-types';

export async function delegationWorkflow(input: DelegationInput): Promise<DelegationRecord> {
  upsertMemo({ startedOnBuild: 'next' });
  return previous(input);
}
