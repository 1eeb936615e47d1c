/**
 * Acceptance that can be stated as data: the built-in checks, required artifacts and a review gate.
 * The worker that resolves a delegation states its policy this way when it can (a policy written in
 * code cannot be), and the workflow then decides itself, with no local activity (decision 0020).
 * Pure and deterministic: it runs in the workflow sandbox and in the worker alike.
 */
import type { Part } from './a2a-types';
import type { ArtifactRecord } from './delegation-types';

/** What acceptance is asked about: a completed task's artifacts, or a direct reply. */
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

/** The built-in checks that need nothing but the candidate. */
export const BUILT_IN_CHECKS = {
  /** Accepts a result that carries at least one artifact, or a direct reply. */
  'completed-with-artifact': (c: Candidate): Decision => {
    if (c.reply) return { accepted: true, reasons: ['direct Message reply'] };
    if (c.artifacts.length === 0) return { accepted: false, reasons: ['remote task COMPLETED without any artifact'] };
    return { accepted: true, reasons: [`remote task COMPLETED with ${c.artifacts.length} artifact(s)`] };
  },
  /** Accepts whatever completed. Useful for exploration; not for production. */
  'accept-any': (): Decision => ({ accepted: true, reasons: ['policy accept-any accepts every completed result'] }),
} as const;
export type BuiltInCheck = keyof typeof BUILT_IN_CHECKS;

/** A policy as data: the artifacts it requires, then its base (a built-in check, or another rule), then a review gate. */
export interface AcceptanceRule {
  /** The policy's name, for the log. */
  policy: string;
  requireArtifacts?: { name: string; mediaType?: string }[];
  /** What decides once the required artifacts are there. Default: nothing more (they suffice). */
  base?: BuiltInCheck | AcceptanceRule;
  review?: boolean;
}

/** Why `candidate` lacks what `required` asks for, one reason per missing or mistyped artifact. */
export function missingArtifacts(required: AcceptanceRule['requireArtifacts'], candidate: Candidate): string[] {
  const reasons: string[] = [];
  for (const want of required ?? []) {
    const found = candidate.artifacts.find((a) => a.name === want.name);
    if (!found) reasons.push(`required artifact "${want.name}" is missing`);
    else if (want.mediaType && found.mediaType !== want.mediaType)
      reasons.push(`artifact "${want.name}" is ${found.mediaType ?? 'of no media type'}, not ${want.mediaType}`);
  }
  return reasons;
}

/** The decision `rule` makes on `candidate`: exactly what the worker's policy of that name decides. */
export function decide(rule: AcceptanceRule, candidate: Candidate): Decision {
  const reasons = missingArtifacts(rule.requireArtifacts, candidate);
  if (reasons.length) return { accepted: false, reasons };
  const { base } = rule;
  const decision =
    base === undefined
      ? { accepted: true, reasons: ['required artifacts present'] }
      : typeof base === 'string'
        ? BUILT_IN_CHECKS[base](candidate)
        : decide(base, candidate);
  return rule.review && decision.accepted ? { ...decision, review: true } : decision;
}

/**
 * A decision worth an `info` line: a refusal, or an acceptance a person must confirm. A plain
 * acceptance is in the record and the search attributes already.
 */
export function needsNotice(decision: Decision): boolean {
  return !decision.accepted || decision.review === true;
}
