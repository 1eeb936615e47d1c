/**
 * A turn of a caller's data, made ready for its agent (docs/data-use.md): checked against the agent's
 * clearance and the entry's rules for terms, then sent with the terms as Baton's extension or without
 * Baton's metadata; and what the turn's record says of it once the agent answered.
 */
import type { SendTurn } from '../src/a2a/agent-client';
import { failure } from '../src/a2a/errors';
import {
  conveyanceOf,
  DATA_USE_EXTENSION,
  refuseData,
  refuseInherited,
  withEffectiveLabels,
  withoutDataUse,
  type TurnDataUse,
} from '../src/shared/data-use';
import type { ResolvedAgent } from '../src/shared/delegation-types';
import { FailureType } from '../src/shared/failure-types';
import type { SendOutcome } from '../src/shared/send-outcome';
import { withActivatedExtensions } from '../src/a2a/activated-extensions';
import type { AgentDirectory } from './agent-directory';
import type { InheritedLabel } from '../src/shared/graph-data-use';

/** Sends `turn` with `send` as its data use says (a refusal is thrown), and records on the outcome what it conveyed. */
export async function sendWithDataUse(
  agents: AgentDirectory,
  agent: ResolvedAgent,
  turn: SendTurn,
  send: (turn: SendTurn) => Promise<SendOutcome>,
  inherited: readonly InheritedLabel[] = [],
): Promise<SendOutcome> {
  const ready = turnForAgent(agents, agent, turn, inherited);
  if (!ready.dataUse) return send(turn);
  const { result, activated } = await withActivatedExtensions(() => send(ready.turn));
  return { ...result, dataUse: turnDataUse(ready.dataUse, agent, activated) };
}

/** The turn as it goes to `agent`, and what it conveyed (undefined: it carries no data use); a refusal is thrown (DataRefused). */
export function turnForAgent(
  agents: AgentDirectory,
  agent: ResolvedAgent,
  turn: SendTurn,
  inherited: readonly InheritedLabel[] = [],
): { turn: SendTurn; dataUse?: Omit<TurnDataUse, 'acknowledged'> } {
  const rules = agents.dataUseRules;
  const cleared = agents.cleared(agent.name);
  const refused = refuseData(turn.parts, agent.name, cleared, rules) ?? refuseInherited(inherited, agent.name, cleared);
  if (refused) throw failure(FailureType.DATA_REFUSED, refused);
  const declared = agent.capabilities.dataUse === true;
  const labels = inherited.map((i) => i.label);
  const how = conveyanceOf(turn.parts, agent.name, declared, agents.entryOf(agent.name).dataUse, rules, labels);
  if ('refused' in how) throw failure(FailureType.DATA_REFUSED, how.refused);
  if (!how.conveyance) return { turn };
  return {
    turn: how.conveyance.conveyed
      ? { ...turn, parts: withEffectiveLabels(turn.parts, rules.unlabelled), extensions: [DATA_USE_EXTENSION] }
      : { ...turn, parts: withoutDataUse(turn.parts) },
    dataUse: how.conveyance,
  };
}

/** What the turn's record says: with the terms conveyed, whether the agent listed the extension as activated (not read over gRPC). */
export function turnDataUse(
  conveyance: Omit<TurnDataUse, 'acknowledged'>,
  agent: ResolvedAgent,
  activated: string[] | undefined,
): TurnDataUse {
  if (!conveyance.conveyed || agent.interface.binding === 'GRPC') return conveyance;
  return { ...conveyance, acknowledged: activated?.includes(DATA_USE_EXTENSION) === true };
}
