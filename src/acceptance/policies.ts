/**
 * Named acceptance policies. A remote COMPLETED (or a direct Message) is only a candidate; a policy
 * turns it into ACCEPTED or REJECTED with reasons. Artifacts are data: nothing in them can change
 * which policy runs or what it checks.
 */
import type { Part } from '../shared/a2a-types';
import type { ArtifactRecord } from '../shared/delegation-types';
import { supplierVerdict } from './supplier-verdict';

export interface Candidate {
  /** Set when the agent answered with a task. */
  artifacts: ArtifactRecord[];
  /** Set when the agent answered with a direct Message. */
  reply?: { parts: Part[] };
  /** What we asked for (the first turn's parts), for policies that compare the result with the request. */
  request?: Part[];
}

export interface Decision {
  accepted: boolean;
  reasons: string[];
  /** A person must confirm an accepted result before it counts (WAITING_REVIEW). */
  review?: boolean;
}

export type AcceptancePolicy = (candidate: Candidate) => Decision | Promise<Decision>;

const builtIn: Record<string, AcceptancePolicy> = {
  /** Accepts a result that carries at least one artifact, or a direct reply. */
  'completed-with-artifact': (c) => {
    if (c.reply) return { accepted: true, reasons: ['direct Message reply'] };
    if (c.artifacts.length === 0) return { accepted: false, reasons: ['remote task COMPLETED without any artifact'] };
    return { accepted: true, reasons: [`remote task COMPLETED with ${c.artifacts.length} artifact(s)`] };
  },
  /** Accepts whatever completed. Useful for exploration; not for production. */
  'accept-any': () => ({ accepted: true, reasons: ['policy accept-any accepts every completed result'] }),
  /** supplier-qa's verdict: schema-checked, a pass, for the order and report that were asked about. */
  'supplier-verdict': supplierVerdict,
};

/** A policy declared in the config file: a code policy, plus required artifacts and a review gate. */
export interface DeclaredPolicy {
  base?: string;
  requireArtifacts?: { name: string; mediaType?: string }[];
  review?: boolean;
}

export class PolicyRegistry {
  private readonly policies = new Map<string, AcceptancePolicy>(Object.entries(builtIn));

  register(name: string, policy: AcceptancePolicy): this {
    this.policies.set(name, policy);
    return this;
  }

  /** Adds a config-declared policy; its base must already be known. */
  declare(name: string, declared: DeclaredPolicy): this {
    const base = declared.base ? this.policies.get(declared.base) : undefined;
    if (declared.base && !base)
      throw new Error(`policies.${name}.base: unknown policy "${declared.base}" (known: ${this.names().join(', ')})`);
    return this.register(name, async (c) => {
      const reasons: string[] = [];
      for (const required of declared.requireArtifacts ?? []) {
        const found = c.artifacts.find((a) => a.name === required.name);
        if (!found) reasons.push(`required artifact "${required.name}" is missing`);
        else if (required.mediaType && found.mediaType !== required.mediaType)
          reasons.push(`artifact "${required.name}" is ${found.mediaType ?? 'of no media type'}, not ${required.mediaType}`);
      }
      if (reasons.length) return { accepted: false, reasons };
      const decision = base ? await base(c) : { accepted: true, reasons: ['required artifacts present'] };
      return declared.review && decision.accepted ? { ...decision, review: true } : decision;
    });
  }

  /** Declares every policy of a config's `policies` section, in order (a base must come first). */
  declareAll(declared: Record<string, DeclaredPolicy>): this {
    for (const [name, policy] of Object.entries(declared)) this.declare(name, policy);
    return this;
  }

  has(name: string): boolean {
    return this.policies.has(name);
  }

  names(): string[] {
    return [...this.policies.keys()].sort();
  }

  get(name: string): AcceptancePolicy | undefined {
    return this.policies.get(name);
  }
}
