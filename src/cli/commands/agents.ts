/**
 * `baton agents`: the registry, each agent with the state of its card right now (fetched under the
 * agent's trust policy, exactly as a delegation would).
 */
import { agentStatusesOf, type AgentStatus } from '../../a2a/agent-status';
import { loadConfig } from '../../config/load';
import { printJson } from '../output';

export type { AgentStatus };

export async function agentStatuses(configPath?: string): Promise<AgentStatus[]> {
  return agentStatusesOf(loadConfig(configPath).config.agents);
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
