/**
 * Update, Signal and Query definitions shared by workflows and clients.
 */
import { defineQuery } from '@temporalio/workflow';
import type { DelegationRecord } from '../src/shared/delegation-types';

/** The full delegation record (what `baton show --json` prints). */
export const statusQuery = defineQuery<DelegationRecord>('status');
