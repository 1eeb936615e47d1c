/**
 * Activities about agents themselves: resolving one (card, trust, interface, observation mode) and
 * checking names against the registry.
 */
import { chooseInterface, type CardSnapshot, type StoredCard } from '../src/a2a/card';
import type { AcceptanceRule } from '../src/shared/acceptance-rule';
import type { ResolvedAgent } from '../src/shared/delegation-types';
import { DATA_USE_EXTENSION } from '../src/shared/data-use';
import type { GraphClearance } from '../src/shared/graph-data-use';
import type { ActivityContext } from './context';

/** What the delegation asks to resolve. */
export interface ResolveInput {
  delegationId: string;
  agent: string;
  tenant?: string;
  /** The policy the delegation names, if any (else the entry's). */
  policy?: string;
}

/** The agent as a delegation records it, where its card is kept, and its policy as a rule when it is data. */
export interface Resolved {
  agent: ResolvedAgent;
  card: StoredCard | CardSnapshot;
  acceptance?: AcceptanceRule;
  /** The worker's `worker.continueAsNewAfterEvents`, which the delegation keeps for all its runs. */
  continueAsNewAfterEvents?: number;
}

/**
 * The agent's checked card (fetched afresh once its entry's `cardTtl` passed), interface, observation
 * mode and the names of its credentials; the card is kept for audit (`CardKeeper`).
 */
export async function resolveAgent(ctx: ActivityContext, input: ResolveInput): Promise<Resolved> {
  const { agents, deps } = ctx;
  const entry = agents.entryOf(input.agent);
  const { fetched, reused } = await agents.checkedCard(input.agent);
  const iface = chooseInterface(input.agent, fetched, entry);
  // A card checked again is news for operators; one reused within its ttl is not, and on this hot path
  // not even a child logger is made for it unless debug lines are wanted.
  if (!reused || ctx.logger.isLevelEnabled('debug')) {
    ctx.logFor(input)[reused ? 'debug' : 'info']({ cardSha256: fetched.sha256, interface: iface, cardReused: reused }, 'agent resolved');
  }
  const caps: { streaming?: boolean; pushNotifications?: boolean; extensions?: { uri?: string }[] } = fetched.card.capabilities ?? {};
  const declaresDataUse = (caps.extensions ?? []).some((e) => e.uri === DATA_USE_EXTENSION);
  const agent: ResolvedAgent = {
    name: input.agent,
    cardUrl: fetched.url,
    cardSha256: fetched.sha256,
    cardName: fetched.card.name,
    interface: iface,
    defaultPolicy: entry.acceptance,
    reconcile: iface.protocolVersion.startsWith('0.') ? 'unavailable' : 'list-tasks',
    contract: entry.contract,
    observe: agents.observeMode(input.agent, caps),
    ...(deps.config.push ? { backstopPoll: deps.config.push.backstopPoll } : {}),
    ...(entry.sparsePoll ? { sparsePoll: entry.sparsePoll } : {}),
    capabilities: {
      streaming: caps.streaming === true,
      pushNotifications: caps.pushNotifications === true,
      ...(declaresDataUse ? { dataUse: true as const } : {}),
    },
    // Names only: which credentials an authorize may name for this tenant (the values stay on the worker).
    credentials: agents.credentialNames(input.agent, input.tenant),
  };
  const clearance = agents.recordedClearance(input.agent);
  if (clearance) agent.clearance = clearance;
  // A policy that is data all the way down is decided by the workflow itself, with no local activity.
  const acceptance = deps.policies.ruleOf(input.policy ?? entry.acceptance);
  const afterEvents = deps.config.worker?.continueAsNewAfterEvents;
  return {
    agent,
    card: await ctx.cards.keep(fetched, input.delegationId),
    ...(acceptance ? { acceptance } : {}),
    ...(afterEvents ? { continueAsNewAfterEvents: afterEvents } : {}),
  };
}

export function agentActivities(ctx: ActivityContext) {
  const { agents, deps } = ctx;
  return {
    /** Which of `agents` the registry lacks, and which of `policies` are unknown (graphs check before they start). */
    async checkNames(input: { agents: string[]; policies: string[]; dataUse?: true }): Promise<{
      unknownAgents: string[];
      unknownPolicies: string[];
      knownAgents: string[];
      continueAsNewAfterEvents?: number;
      graphBackstop?: string;
      /** The labels and the agents' clearance, when the graph's requests carry data use or unlabelled data counts as a label. */
      clearance?: GraphClearance;
    }> {
      const knownAgents = agents.names;
      const afterEvents = deps.config.worker?.continueAsNewAfterEvents;
      const backstop = deps.config.worker?.graphBackstop;
      const rules = agents.dataUseRules;
      const clearance: GraphClearance | undefined =
        input.dataUse || rules.unlabelled !== undefined
          ? {
              labels: [...rules.labels],
              ...(rules.unlabelled !== undefined ? { unlabelled: rules.unlabelled } : {}),
              cleared: Object.fromEntries(input.agents.filter((a) => knownAgents.includes(a)).map((a) => [a, agents.cleared(a)])),
            }
          : undefined;
      return {
        ...(clearance ? { clearance } : {}),
        unknownAgents: input.agents.filter((a) => !knownAgents.includes(a)),
        unknownPolicies: input.policies.filter((p) => !deps.policies.has(p)),
        knownAgents,
        // The graph keeps the worker's threshold for all its runs, as a delegation does.
        ...(afterEvents ? { continueAsNewAfterEvents: afterEvents } : {}),
        ...(backstop ? { graphBackstop: backstop } : {}),
      };
    },
  };
}
