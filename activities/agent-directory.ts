/**
 * The worker's view of its agents: registry entries, fetched cards (reused for a while), and one A2A
 * client per agent, interface and card digest.
 */
import { msToNumber } from '@temporalio/common';
import { AgentClient } from '../src/a2a/agent-client';
import { createAgentFetch } from '../src/a2a/agent-fetch';
import { readSecret } from '../src/secrets/read-secret';
import { credentialsFor } from '../src/a2a/agent-credentials';
import { agentTokens } from '../src/a2a/agent-tokens';
import { grpcChannel } from '../src/a2a/grpc-channel';
import { fetchCard, type FetchedCard } from '../src/a2a/card';
import { failure, toFailure } from '../src/a2a/errors';
import type { AgentEntry, BatonConfig, Credential } from '../src/config/schema';
import type { ResolvedAgent } from '../src/shared/delegation-types';
import { clearanceOf, DEFAULT_OPEN_LABEL, type AgentClearance, type DataUseRules } from '../src/shared/data-use';
import { dataUseRules } from '../src/config/data-use-rules';
import { FailureType } from '../src/shared/failure-types';
import type { Lookup } from '../src/a2a/guarded-fetch';

/** What the directory reads: the agents' entries, the DNS lookup, a card lifetime for every agent (see `ActivityDeps`). */
export interface AgentDirectoryDeps {
  config: Pick<BatonConfig, 'agents'> & Partial<Pick<BatonConfig, 'push' | 'dataUse'>>;
  lookup?: Lookup;
  cardTtlMs?: number;
}

export class AgentDirectory {
  private readonly cards = new Map<string, { fetched: FetchedCard; at: number }>();
  private readonly clients = new Map<string, AgentClient>();
  private rules?: DataUseRules;

  constructor(private readonly deps: AgentDirectoryDeps) {}

  /** Names of the agents in the registry. */
  get names(): string[] {
    return Object.keys(this.deps.config.agents);
  }

  /** The registry entry of `agent`; an unknown name is the config's fault (ConfigInvalid). */
  entryOf(agent: string): AgentEntry {
    const entry = this.deps.config.agents[agent];
    if (!entry) {
      const known = this.names;
      throw failure(
        FailureType.CONFIG_INVALID,
        `unknown agent "${agent}"; known agents: ${known.length ? known.join(', ') : '(none configured)'}`,
      );
    }
    return entry;
  }

  /**
   * The agent's card, fetched and checked under its trust policy; reused for the entry's `cardTtl`
   * unless `fresh`. A card fetched again is checked again whole, so a changed card (or one signed with
   * another key) is never used on the strength of an earlier check.
   */
  async cardOf(agent: string, fresh = false): Promise<FetchedCard> {
    return (await this.checkedCard(agent, fresh)).fetched;
  }

  /** As `cardOf`, and whether the card was reused from an earlier check (`reused`) or fetched now. */
  async checkedCard(agent: string, fresh = false): Promise<{ fetched: FetchedCard; reused: boolean }> {
    const entry = this.entryOf(agent);
    const cached = this.cards.get(agent);
    const ttlMs = this.deps.cardTtlMs ?? msToNumber(entry.cardTtl as `${number}s`);
    if (!fresh && cached && Date.now() - cached.at < ttlMs) return { fetched: cached.fetched, reused: true };
    const fetched = await fetchCard(agent, entry, { lookup: this.deps.lookup });
    this.cards.set(agent, { fetched, at: Date.now() });
    return { fetched, reused: false };
  }

  /**
   * The client for the interface recorded at resolve time, on the very card that was recorded. What
   * cannot be made (an address refused, a client certificate that cannot be read) is a typed failure.
   */
  async clientFor(resolved: ResolvedAgent): Promise<AgentClient> {
    try {
      return await this.makeClient(resolved);
    } catch (err) {
      throw toFailure(err, `agent ${resolved.name}`);
    }
  }

  private async makeClient(resolved: ResolvedAgent): Promise<AgentClient> {
    const key = `${resolved.name}|${resolved.cardSha256}|${resolved.interface.url}`;
    const existing = this.clients.get(key);
    if (existing) return existing;
    let fetched = await this.cardOf(resolved.name);
    if (fetched.sha256 !== resolved.cardSha256) fetched = await this.cardOf(resolved.name, true);
    if (fetched.sha256 !== resolved.cardSha256) {
      throw failure(
        FailureType.TRUST_REFUSED,
        `agent ${resolved.name}: card changed since this delegation resolved it (sha256 ${resolved.cardSha256.slice(0, 12)}… → ${fetched.sha256.slice(0, 12)}…)`,
      );
    }
    const entry = this.entryOf(resolved.name);
    // The OAuth token the last gRPC call carried, to forget when the agent refuses it.
    let lastToken: string | undefined;
    const client = await AgentClient.create(
      resolved.name,
      fetched.card,
      resolved.interface,
      createAgentFetch(resolved.name, entry, { lookup: this.deps.lookup }),
      async () => ({
        channel: await grpcChannel(resolved.interface.url, fetched.url, entry, this.deps.lookup, `agents.${resolved.name}`),
        headers: async () => {
          const creds = await credentialsFor(resolved.name, entry, this.deps.lookup ? { lookup: this.deps.lookup } : {});
          lastToken = creds.token;
          return creds.headers;
        },
        refused: () => (lastToken ? agentTokens.refused(resolved.name, entry, lastToken) : false),
      }),
      entry.limits.callTimeoutMs,
    );
    this.clients.set(key, client);
    return client;
  }

  /** The data-use rules every turn is checked against before it is sent (config `dataUse`, docs/data-use.md); made once. */
  get dataUseRules(): DataUseRules {
    return (this.rules ??= dataUseRules(this.deps.config));
  }

  /** The labels `agent` is cleared for (the open label and its entry's `clearance`). */
  cleared(agent: string): string[] {
    return clearanceOf(this.dataUseRules, this.entryOf(agent).clearance);
  }

  /**
   * What a delegation to `agent` records of its clearance, so an answer is checked in the workflow;
   * undefined when it is the default (only the open label `public`, unlabelled data needs none), which
   * keeps the record of most delegations as it was.
   */
  recordedClearance(agent: string): AgentClearance | undefined {
    const rules = this.dataUseRules;
    const cleared = this.cleared(agent);
    if (rules.unlabelled === undefined && cleared.length === 1 && cleared[0] === DEFAULT_OPEN_LABEL) return undefined;
    return { cleared, ...(rules.unlabelled ? { unlabelled: rules.unlabelled } : {}) };
  }

  /** Names of the credentials `agent`'s entry allows for delegations of `tenant`. */
  credentialNames(agent: string, tenant: string | undefined): string[] {
    const credentials = this.entryOf(agent).credentials;
    return Object.keys(credentials).filter((name) => {
      const tenants = credentials[name]?.tenants;
      return !tenants || (tenant !== undefined && tenants.includes(tenant));
    });
  }

  /**
   * The value of credential `name` of `agent`, for a delegation of `tenant`. Only a credential the
   * entry lists is ever read: the name cannot point anywhere else.
   */
  credentialValue(agent: string, ask: { name: string; tenant?: string }): string {
    const credentials = this.entryOf(agent).credentials;
    const allowed = this.credentialNames(agent, ask.tenant);
    const name = ask.name;
    if (!allowed.includes(name)) {
      throw failure(
        FailureType.CONFIG_INVALID,
        `agent ${agent}: credential "${name}" is not a credential this delegation may send (agents.${agent}.credentials allows: ${allowed.join(', ') || 'none'})`,
      );
    }
    try {
      return readSecret(credentials[name] as Credential, `agents.${agent}.credentials.${name}`);
    } catch (err) {
      throw failure(FailureType.CONFIG_INVALID, (err as Error).message);
    }
  }

  /** auto: a stream when the card offers one, else push when the card offers it and push is set up, else polling. */
  observeMode(agent: string, caps: { streaming?: boolean; pushNotifications?: boolean }): ResolvedAgent['observe'] {
    const wanted = this.entryOf(agent).observe;
    const push = this.deps.config.push;
    if (wanted === 'push') {
      if (!push)
        throw failure(
          FailureType.CONFIG_INVALID,
          `agents.${agent}.observe is push, but the config has no push section (push.url, push.secretFromEnv)`,
        );
      if (caps.pushNotifications !== true)
        throw failure(
          FailureType.CONFIG_INVALID,
          `agents.${agent}.observe is push, but the agent's card does not offer push notifications`,
        );
      return 'push';
    }
    if (wanted !== 'auto') return wanted;
    if (caps.streaming === true) return 'stream';
    return caps.pushNotifications === true && push ? 'push' : 'poll';
  }
}
