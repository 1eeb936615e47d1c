/**
 * The delegation record and the events that change it. The workflow only wires activities to these
 * methods; every decision about what an event means is here, unit-tested without Temporal.
 */
import type { Part } from './a2a-types';
import type { DelegationInput, DelegationRecord, DelegationStatus, Outcome, RemoteSnapshot, ResolvedAgent } from './delegation-types';
import { outcomeOfRemoteEnd } from './remote-state';

/** What to do after an observation. */
export type NextStep = { kind: 'observe' } | { kind: 'accept' } | { kind: 'end'; outcome: Outcome } | { kind: 'interrupted' };

export class DelegationState {
  readonly record: DelegationRecord;

  constructor(id: string, input: DelegationInput) {
    this.record = {
      id,
      tenant: input.tenant,
      owner: input.owner,
      agent: { name: input.agent },
      status: 'STARTING',
      remote: { history: [] },
      pending: null,
      turns: [],
      artifacts: [],
      ...(input.policy ? { policy: input.policy } : {}),
    };
  }

  get status(): DelegationStatus {
    return this.record.status;
  }

  /** Records the card digest and chosen interface; returns the policy in force. */
  resolved(agent: ResolvedAgent): string {
    this.record.agent = { name: agent.name, cardSha256: agent.cardSha256, interface: agent.interface };
    this.record.policy ??= agent.defaultPolicy;
    return this.record.policy;
  }

  turnSent(messageId: string, sentAt: string): void {
    this.record.turns.push({ messageId, sentAt });
  }

  /** Records a remote observation and says what comes next. */
  observed(snapshot: RemoteSnapshot): NextStep {
    const remote = this.record.remote;
    remote.taskId = snapshot.taskId;
    remote.contextId = snapshot.contextId;
    const last = remote.history[remote.history.length - 1];
    if (!last || last.state !== snapshot.state) {
      remote.history.push({
        state: snapshot.state,
        observedAt: snapshot.observedAt,
        ...(snapshot.remoteTimestamp ? { remoteTimestamp: snapshot.remoteTimestamp } : {}),
      });
    }
    remote.state = snapshot.state;
    this.record.artifacts = snapshot.artifacts;
    if (snapshot.state === 'TASK_STATE_COMPLETED') return { kind: 'accept' };
    const ended = outcomeOfRemoteEnd(snapshot.state, snapshot.statusText);
    if (ended) return { kind: 'end', outcome: ended };
    if (snapshot.state === 'TASK_STATE_INPUT_REQUIRED' || snapshot.state === 'TASK_STATE_AUTH_REQUIRED') return { kind: 'interrupted' };
    this.record.status = 'REMOTE_ACTIVE';
    return { kind: 'observe' };
  }

  replied(reply: { messageId: string; parts: Part[]; contextId?: string }): void {
    this.record.reply = { messageId: reply.messageId, parts: reply.parts };
    if (reply.contextId) this.record.remote.contextId = reply.contextId;
  }

  decided(accepted: boolean, reasons: string[]): Outcome {
    return this.settle({ kind: accepted ? 'ACCEPTED' : 'REJECTED', reasons });
  }

  settle(outcome: Outcome): Outcome {
    this.record.outcome = outcome;
    this.record.status = 'SETTLED';
    return outcome;
  }
}
