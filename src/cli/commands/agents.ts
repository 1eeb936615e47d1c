/**
 * `baton agents`: the registry, each agent with the state of its card right now (fetched under the
 * agent's trust policy, exactly as a delegation would).
 */
import type { ApplicationFailure } from '@temporalio/common';
import { chooseInterface, fetchCard } from '../../a2a/card';
import { loadConfig } from '../../config/load';
import type { ChosenInterface } from '../../shared/delegation-types';
import { printJson } from '../output';

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
}

const STATE_OF: Record<string, AgentStatus['state']> = {
  TrustRefused: 'refused',
  InvalidAgentResponse: 'invalid',
  AgentRefused: 'refused',
  ConfigInvalid: 'misconfigured',
  RetryLater: 'unreachable',
};

export async function agentStatuses(configPath?: string): Promise<AgentStatus[]> {
  const { config } = loadConfig(configPath);
  return Promise.all(
    Object.entries(config.agents).map(async ([name, entry]): Promise<AgentStatus> => {
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
        };
        return { ...base, state: 'ok', interface: chooseInterface(name, fetched, entry) };
      } catch (err) {
        const failure = err as ApplicationFailure;
        return { name, card: entry.card, state: STATE_OF[failure.type ?? ''] ?? 'unreachable', reason: failure.message };
      }
    }),
  );
}

export async function agentsCommand(opts: { json?: boolean; config?: string }): Promise<number> {
  const statuses = await agentStatuses(opts.config);
  if (opts.json) {
    printJson(statuses);
  } else if (!statuses.length) {
    process.stdout.write('No agents configured. Add them under `agents:` in baton.config.yaml (see docs/configuration.md).\n');
  } else {
    for (const s of statuses) {
      process.stdout.write(`${s.name.padEnd(16)} ${s.state.padEnd(13)} ${s.card}\n`);
      if (s.interface)
        process.stdout.write(
          `${''.padEnd(16)} ${s.interface.binding} ${s.interface.protocolVersion} ${s.interface.url}  sha256:${s.cardSha256?.slice(0, 16)}…${s.signed ? '  signed' : ''}\n`,
        );
      if (s.reason) process.stdout.write(`${''.padEnd(16)} ${s.reason}\n`);
    }
  }
  return 0;
}
