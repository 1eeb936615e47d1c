/**
 * Baton's Nexus service, as callers see it: the operations, their inputs and outputs. A TypeScript
 * caller workflow imports it from `baton-a2a/workflow` (safe in the workflow sandbox: nexus-rpc and types
 * only); callers in other languages name the service `baton` and take the types from
 * `baton-nexus-service.schema.json` beside this file. docs/nexus.md says how to call it.
 */
import * as nexus from 'nexus-rpc';
import type { DelegationRecord } from '../src/shared/delegation-types';
import type { GraphRecord } from '../src/shared/graph-types';
import type {
  AnswerInput,
  AuthorizeInput,
  CancelInput,
  DelegateInput,
  ReviewInput,
  RunGraphInput,
  StatusInput,
} from '../src/nexus/operation-schemas';

export type { AnswerInput, AuthorizeInput, CancelInput, DelegateInput, ReviewInput, RunGraphInput, StatusInput };

/** The service's name on every endpoint that serves it. */
export const BATON_NEXUS_SERVICE = 'baton';

/** What `answer` and `authorize` give back: the turn that carried the answer to the agent. */
export interface Sent {
  messageId: string;
}

export const batonNexusService = nexus.service(BATON_NEXUS_SERVICE, {
  /** Asynchronous: the delegation workflow (its id in the operation token); completes with the settled record. */
  delegate: nexus.operation<DelegateInput, DelegationRecord>(),
  /** Asynchronous: the task graph workflow; completes with the settled graph's record. */
  runGraph: nexus.operation<RunGraphInput, GraphRecord>(),
  /** Answers the delegation's pending input request (the `answer` Update). */
  answer: nexus.operation<AnswerInput, Sent>(),
  /** Authorizes its pending auth request with a credential, by name (the `authorize` Update). */
  authorize: nexus.operation<AuthorizeInput, Sent>(),
  /** Decides a result waiting for review; the settled record (the `review` Update). */
  review: nexus.operation<ReviewInput, DelegationRecord>(),
  /** Cancels the delegation and its remote task; the settled record (the `cancel` Update). */
  cancel: nexus.operation<CancelInput, DelegationRecord>(),
  /** The record now. */
  status: nexus.operation<StatusInput, DelegationRecord>(),
});
