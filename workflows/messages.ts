/**
 * Update, Signal and Query definitions shared by workflows and clients.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { Answer, Authorize, CancelRequest, DelegationRecord, Review } from '../src/shared/delegation-types';

/** The full delegation record (what `baton show --json` prints). */
export const statusQuery = defineQuery<DelegationRecord>('status');

/** Answers the pending INPUT_REQUIRED request; resolves once the answer went out as a new turn. */
export const answerUpdate = defineUpdate<{ messageId: string }, [Answer]>('answer');

/** Authorizes the pending AUTH_REQUIRED request with a reference to a credential (never the credential). */
export const authorizeUpdate = defineUpdate<{ messageId: string }, [Authorize]>('authorize');

/** Cancels the delegation and, through it, the remote task; resolves with the settled record. */
export const cancelUpdate = defineUpdate<DelegationRecord, [CancelRequest]>('cancel');

/** Decides a result waiting for review; resolves with the settled record. */
export const reviewUpdate = defineUpdate<DelegationRecord, [Review]>('review');
