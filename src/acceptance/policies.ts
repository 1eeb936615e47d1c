/**
 * Named acceptance policies. A remote COMPLETED (or a direct Message) is only a candidate; a policy
 * turns it into ACCEPTED or REJECTED with reasons. Artifacts are data: nothing in them can change
 * which policy runs or what it checks.
 */
import type { Part } from '../shared/a2a-types';
import type { ArtifactRecord } from '../shared/delegation-types';

export interface Candidate {
  /** Set when the agent answered with a task. */
  artifacts: ArtifactRecord[];
  /** Set when the agent answered with a direct Message. */
  reply?: { parts: Part[] };
}

export interface Decision {
  accepted: boolean;
  reasons: string[];
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
};

export class PolicyRegistry {
  private readonly policies = new Map<string, AcceptancePolicy>(Object.entries(builtIn));

  register(name: string, policy: AcceptancePolicy): this {
    this.policies.set(name, policy);
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
