/**
 * Named acceptance policies. A remote COMPLETED (or a direct Message) is only a candidate; a policy
 * turns it into ACCEPTED or REJECTED with reasons. Artifacts are data: nothing in them can change
 * which policy runs or what it checks.
 */
import { BUILT_IN_CHECKS, missingArtifacts, type AcceptanceRule, type Candidate, type Decision } from '../shared/acceptance-rule';
import { supplierVerdict } from './supplier-verdict';

export type { Candidate, Decision } from '../shared/acceptance-rule';

export type AcceptancePolicy = (candidate: Candidate) => Decision | Promise<Decision>;

const builtIn: Record<string, AcceptancePolicy> = {
  ...BUILT_IN_CHECKS,
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
  /** The policies that are data all the way down, as rules the workflow can decide by itself. */
  private readonly rules = new Map<string, AcceptanceRule>(
    (Object.keys(BUILT_IN_CHECKS) as (keyof typeof BUILT_IN_CHECKS)[]).map((name) => [name, { policy: name, base: name }]),
  );

  /** Adds (or replaces) a policy written in code. */
  register(name: string, policy: AcceptancePolicy): this {
    this.policies.set(name, policy);
    this.rules.delete(name);
    return this;
  }

  /** Adds a config-declared policy; its base must already be known. */
  declare(name: string, declared: DeclaredPolicy): this {
    const base = declared.base ? this.policies.get(declared.base) : undefined;
    if (declared.base && !base)
      throw new Error(`policies.${name}.base: unknown policy "${declared.base}" (known: ${this.names().join(', ')})`);
    this.register(name, async (c) => {
      const reasons = missingArtifacts(declared.requireArtifacts, c);
      if (reasons.length) return { accepted: false, reasons };
      const decision = base ? await base(c) : { accepted: true, reasons: ['required artifacts present'] };
      return declared.review && decision.accepted ? { ...decision, review: true } : decision;
    });
    // Stated as data too when its base is (or it has none): the same decision, made in the workflow.
    const baseRule = declared.base ? this.rules.get(declared.base) : undefined;
    if (!declared.base || baseRule) {
      this.rules.set(name, {
        policy: name,
        ...(declared.requireArtifacts?.length ? { requireArtifacts: declared.requireArtifacts } : {}),
        ...(baseRule ? { base: baseRule } : {}),
        ...(declared.review ? { review: true } : {}),
      });
    }
    return this;
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

  /** Policy `name` as a rule the workflow can decide by itself; undefined for a policy written in code. */
  ruleOf(name: string): AcceptanceRule | undefined {
    return this.rules.get(name);
  }
}
