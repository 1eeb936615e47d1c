/**
 * Each registry entry with the state of its card right now, fetched under the entry's trust policy
 * exactly as a delegation would (`baton agents`, the MCP server's list_agents).
 */
import type { ApplicationFailure } from '@temporalio/common';
import type { AgentEntry } from '../config/schema';
import type { ChosenInterface } from '../shared/delegation-types';
import { chooseInterface, fetchCard } from './card';

export interface AgentStatus {
  name: string;
  card: string;
  state: 'ok' | 'refused' | 'invalid' | 'unreachable' | 'misconfigured';
  reason?: string;
  cardName?: string;
  cardSha256?: string;
  signed?: boolean;
  interface?: ChosenInterface;
  offered?: string[];
  capabilities?: { streaming: boolean; pushNotifications: boolean };
  /** The card's own description and skills: the agent's words, untrusted. */
  description?: string;
  skills?: { id: string; name: string; description?: string; tags: string[] }[];
}

const STATE_OF: Record<string, AgentStatus['state']> = {
  TrustRefused: 'refused',
  InvalidAgentResponse: 'invalid',
  AgentRefused: 'refused',
  ConfigInvalid: 'misconfigured',
  RetryLater: 'unreachable',
};

/** Each registry entry with its card as fetched now, under the entry's trust policy. */
export function agentStatusesOf(agents: Record<string, AgentEntry>): Promise<AgentStatus[]> {
  return Promise.all(
    Object.entries(agents).map(async ([name, entry]): Promise<AgentStatus> => {
      try {
        const fetched = await fetchCard(name, entry);
        const base = {
          name,
          card: fetched.url,
          cardName: fetched.card.name,
          cardSha256: fetched.sha256,
          signed: (fetched.card.signatures?.length ?? 0) > 0,
          offered: (fetched.card.supportedInterfaces ?? []).map((i) => `${i.protocolBinding} ${i.protocolVersion} ${i.url}`),
          capabilities: {
            streaming: fetched.card.capabilities?.streaming === true,
            pushNotifications: fetched.card.capabilities?.pushNotifications === true,
          },
          ...(fetched.card.description ? { description: fetched.card.description } : {}),
          skills: (fetched.card.skills ?? []).map((k) => ({
            id: k.id,
            name: k.name,
            ...(k.description ? { description: k.description } : {}),
            tags: k.tags ?? [],
          })),
        };
        return { ...base, state: 'ok', interface: chooseInterface(name, fetched, entry) };
      } catch (err) {
        const failure = err as ApplicationFailure;
        return { name, card: entry.card, state: STATE_OF[failure.type ?? ''] ?? 'unreachable', reason: failure.message };
      }
    }),
  );
}
