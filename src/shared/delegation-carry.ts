/**
 * What a delegation takes with it when it continues as new: its record, the state behind its
 * decisions, and where it was. Plain JSON, written into the new run's history as its second argument.
 */
import type { AcceptanceRule } from './acceptance-rule';
import type { DelegationRecord, ResolvedAgent } from './delegation-types';

/** Events in one run's history before a delegation continues as new, unless a configuration says otherwise. */
export const DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS = 4_000;

/** What `DelegationState` knows beyond its record. */
export interface DelegationStateCarry {
  record: DelegationRecord;
  /** Requests opened so far (input, auth, review): the next one's id goes on from here. */
  requests: number;
  /** Answered requests and the messageId each went out as. */
  sentFor: [string, string][];
  answeredKey?: string;
  inlineBytes: number;
  reviewReasons: string[];
}

/** The step a continued run starts with: the one its predecessor was waiting in. */
export type CarriedStep = 'observe' | 'interrupted' | 'review';

export interface DelegationCarry {
  at: CarriedStep;
  state: DelegationStateCarry;
  agent: ResolvedAgent;
  policy: string;
  rule?: AcceptanceRule;
  /** Push mode: the webhook is registered; pushes received and not yet covered by a read. */
  push: { registered: boolean; unread: number };
  /** When the contract's deadline passes (epoch ms, workflow time), if it has one. */
  deadlineAt?: number;
  /** When reads at Baton's own pace stop (the contract's `maxWait`; epoch ms, workflow time), if set. */
  waitUntil?: number;
  /** The request the `notify` workflow was last told about, so it is not told twice. */
  announced?: string;
  /** The threshold the first run was given (the worker's `worker.continueAsNewAfterEvents`). */
  afterEvents: number;
  /** Runs before this one. */
  runs: number;
  /** The task had worked for long: the new run reads it sparsely at once (agents.X.sparsePoll). */
  workingLong?: boolean;
}
