/**
 * Data labels and data-use terms on a request's parts, and the agent clearance they are checked
 * against before anything is sent (docs/data-use.md). Pure and workflow-safe: the worker checks each
 * turn it sends with these, and a delegation's Update validator checks an answer's parts.
 */
import type { Part } from './a2a-types';
import type { DataUse } from './data-use-types';
import { dataUseSchemas } from './schemas-on-demand';

export type { DataTerms, DataUse, Forwarding } from './data-use-types';

/**
 * Baton's data-use extension. A part carries its label and terms in its `metadata` under this key;
 * the same URI names the extension on cards and in the `A2A-Extensions` header.
 */
export const DATA_USE_EXTENSION = 'urn:baton-a2a:data-use:v1';

/** The labels when the config names none, from least to most guarded. */
export const DEFAULT_LABELS = ['public', 'internal', 'confidential', 'personal'] as const;

/** The label every agent is cleared for unless the config says otherwise. */
export const DEFAULT_OPEN_LABEL = 'public';

/** What a delegation records of the worker's rules for its agent, so an answer can be checked in the workflow. */
export interface AgentClearance {
  /** The labels the agent is cleared for. */
  cleared: string[];
  /** The label of a part that carries none; unset: such a part needs no clearance. */
  unlabelled?: string;
}

/** The worker's data-use rules that a check needs (config `dataUse`, with the agents' `clearance`). */
export interface DataUseRules {
  labels: readonly string[];
  open: string;
  unlabelled?: string;
  /** Every agent's registry name and card URL: a forwarding rule may name an agent by either. */
  agents: { name: string; card: string }[];
}

function carried(part: Part): unknown {
  return part.metadata?.[DATA_USE_EXTENSION];
}

type Parsed = ReturnType<ReturnType<typeof dataUseSchemas>['DataUseSchema']['safeParse']>;
/** Each metadata object parsed once: a turn's checks, conveyance and stripping all read the same parts. */
const parsedUses = new WeakMap<object, Parsed>();

function parse(raw: unknown): Parsed {
  if (typeof raw !== 'object' || raw === null) return dataUseSchemas().DataUseSchema.safeParse(raw);
  let result = parsedUses.get(raw);
  if (!result) {
    result = dataUseSchemas().DataUseSchema.safeParse(raw);
    parsedUses.set(raw, result);
  }
  return result;
}

/** Whether `ref` (a registry name or a card URL) names an agent the rules know. */
function knowsAgent(rules: Pick<DataUseRules, 'agents'>, ref: string): boolean {
  return rules.agents.some((a) => a.name === ref || a.card === ref);
}

/** Why the data-use metadata of `parts` is malformed (the first part that is), or undefined. */
export function refuseDataUseShape(parts: readonly Part[]): string | undefined {
  for (const [i, part] of parts.entries()) {
    const raw = carried(part);
    if (raw === undefined) continue;
    const parsed = parse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const at = issue?.path.length ? `${issue.path.join('.')}: ` : '';
      return `part ${i + 1}'s data-use metadata is malformed (${at}${issue?.message ?? 'invalid'}); nothing was sent`;
    }
  }
  return undefined;
}

/** A part's data use, or undefined when it carries none (or none that parses: `refuseDataUseShape` says why). */
export function dataUseOf(part: Part): DataUse | undefined {
  const raw = carried(part);
  if (raw === undefined) return undefined;
  const parsed = parse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** The label that counts for `part`: its own, else the rules' label for unlabelled data (undefined: none needed). */
export function labelOf(part: Part, unlabelled: string | undefined): string | undefined {
  return dataUseOf(part)?.label ?? unlabelled;
}

/**
 * `parts` with `use` on each part that carries no data use of its own (a request-wide label and terms,
 * as `baton delegate --label` gives them). A part's own label and terms win, field by field.
 */
export function withDataUse(parts: Part[], use: DataUse | undefined): Part[] {
  if (!use || (use.label === undefined && use.terms === undefined)) return parts;
  return parts.map((part) => {
    const own = dataUseOf(part) ?? {};
    return { ...part, metadata: { ...part.metadata, [DATA_USE_EXTENSION]: { ...use, ...own } } };
  });
}

/** `parts` without Baton's data-use metadata: what an agent is sent when the terms are not conveyed. */
export function withoutDataUse(parts: Part[]): Part[] {
  if (!parts.some((p) => carried(p) !== undefined)) return parts;
  return parts.map((part) => {
    if (carried(part) === undefined) return part;
    const { [DATA_USE_EXTENSION]: _dropped, ...rest } = part.metadata ?? {};
    const { metadata: _all, ...bare } = part;
    return Object.keys(rest).length ? { ...bare, metadata: rest } : bare;
  });
}

/** The labels an agent entry's `clearance` grants, with the open label. */
export function clearanceOf(rules: Pick<DataUseRules, 'open'>, entryClearance: readonly string[] | undefined): string[] {
  return [...new Set([rules.open, ...(entryClearance ?? [])])];
}

/**
 * Why `parts` may not be sent to agent `agent` (cleared for `cleared`), or undefined. One line naming
 * the part, the label and the entry. Checked before anything is sent: the shape of each part's data
 * use, its label against the known labels and the agent's clearance, and the agents a forwarding rule
 * names against the registry.
 */
export function refuseData(parts: readonly Part[], agent: string, cleared: readonly string[], rules: DataUseRules): string | undefined {
  const malformed = refuseDataUseShape(parts);
  if (malformed) return malformed;
  for (const [i, part] of parts.entries()) {
    const use = dataUseOf(part);
    const label = use?.label ?? rules.unlabelled;
    if (label !== undefined && !rules.labels.includes(label))
      return `part ${i + 1} is labelled ${label}, which is not one of dataUse.labels (${rules.labels.join(', ')}); nothing was sent`;
    if (label !== undefined && !cleared.includes(label)) {
      const how = use?.label === undefined ? ` (dataUse.unlabelled)` : '';
      return `part ${i + 1} is labelled ${label}${how}, and agent ${agent} is cleared only for ${cleared.join(', ')} (agents.${agent}.clearance); nothing was sent`;
    }
    for (const named of use?.terms?.agents ?? []) {
      if (!knowsAgent(rules, named))
        return `part ${i + 1}'s terms let it go to ${named}, which is no agent in the registry (by name or card URL); nothing was sent`;
    }
  }
  return undefined;
}

/**
 * Why an answer's `parts` may not go to the delegation's agent, checked in the workflow from what the
 * resolve step recorded (`clearance`): malformed data use, or a label the agent is not cleared for.
 */
export function refuseAnswerData(parts: readonly Part[], agent: string, clearance: AgentClearance | undefined): string | undefined {
  const malformed = refuseDataUseShape(parts);
  if (malformed) return malformed;
  const cleared = clearance?.cleared ?? [DEFAULT_OPEN_LABEL];
  for (const [i, part] of parts.entries()) {
    const label = labelOf(part, clearance?.unlabelled);
    if (label !== undefined && !cleared.includes(label))
      return `part ${i + 1} is labelled ${label}, and agent ${agent} is cleared only for ${cleared.join(', ')} (agents.${agent}.clearance); nothing was sent`;
  }
  return undefined;
}

/** How an entry sends terms (`agents.X.dataUse`): to agents whose card declares the extension, or always; and what else. */
export interface TermsPolicy {
  /** `if-declared`: the extension goes only to an agent whose card declares it; `always`: to this agent whatever its card says. */
  convey: 'if-declared' | 'always';
  /** When the terms cannot be conveyed: refuse data above the open label, or send it without them. */
  whenUndeclared: 'refuse' | 'send-without-terms';
}

/** What a turn's record says of its data use: the labels its parts had, whether the terms went with them, and whether the agent said it took them. */
export interface TurnDataUse {
  labels: string[];
  conveyed: boolean;
  /** The agent listed the extension among those it activated (the `A2A-Extensions` response header); unset: not known (gRPC). */
  acknowledged?: boolean;
}

/**
 * Whether a turn's data use goes to the agent with the extension (`convey`), or is taken off, or the
 * turn is refused: terms go to an agent whose card declares the extension, or to any when the entry
 * says `convey: always`; otherwise data labelled above the open label is refused, unless the entry
 * says `whenUndeclared: send-without-terms`. A turn with no data use has nothing to convey (undefined).
 */
export function conveyanceOf(
  parts: readonly Part[],
  agent: string,
  declared: boolean,
  policy: TermsPolicy,
  rules: Pick<DataUseRules, 'open' | 'unlabelled'>,
  inherited: readonly string[] = [],
): { refused: string } | { conveyance?: Omit<TurnDataUse, 'acknowledged'> } {
  const uses = parts.map(dataUseOf);
  if (rules.unlabelled === undefined && uses.every((u) => u === undefined) && !inherited.length) return {};
  const effective = uses.map((u) => u?.label ?? rules.unlabelled);
  const labels = [...new Set([...effective.filter((l): l is string => l !== undefined), ...inherited])];
  if (declared || policy.convey === 'always') return { conveyance: { labels, conveyed: true } };
  const why =
    `card does not declare the data-use extension (${DATA_USE_EXTENSION}) to take its terms ` +
    `(agents.${agent}.dataUse.whenUndeclared: refuse); nothing was sent`;
  const above = effective.findIndex((l) => l !== undefined && l !== rules.open);
  if (above >= 0 && policy.whenUndeclared === 'refuse')
    return { refused: `part ${above + 1} is labelled ${effective[above]}, and agent ${agent}'s ${why}` };
  const inheritedAbove = inherited.find((l) => l !== rules.open);
  if (inheritedAbove && policy.whenUndeclared === 'refuse')
    return { refused: `the request inherits data labelled ${inheritedAbove}, and agent ${agent}'s ${why}` };
  return { conveyance: { labels, conveyed: false } };
}

/** Why a request that inherits `inherited` (a graph node's, from the nodes it depends on) may not go to `agent`, or undefined. */
export function refuseInherited(
  inherited: readonly { label: string; from: string }[],
  agent: string,
  cleared: readonly string[],
): string | undefined {
  const over = inherited.find((i) => !cleared.includes(i.label));
  if (!over) return undefined;
  return `the request inherits data labelled ${over.label} from node ${over.from}, and agent ${agent} is cleared only for ${cleared.join(', ')} (agents.${agent}.clearance); nothing was sent`;
}

/** `parts` as they go to an agent that takes the extension: each with its label, an unlabelled one with `unlabelled` when set. */
export function withEffectiveLabels(parts: Part[], unlabelled: string | undefined): Part[] {
  if (unlabelled === undefined) return parts;
  return parts.map((part) => {
    const own = dataUseOf(part);
    if (own?.label !== undefined) return part;
    return { ...part, metadata: { ...part.metadata, [DATA_USE_EXTENSION]: { ...own, label: unlabelled } } };
  });
}

/** An agent a served service passes its caller's data to: its registry name, card URL and clearance. */
export interface ForwardTarget {
  name: string;
  card: string;
  cleared: readonly string[];
}

/** Which rule a refused forward broke, for the A2A error's metadata. */
export type ForwardRule = 'malformed' | 'label' | 'unknown-agent' | 'forwarding' | 'clearance' | 'undeclared-targets';

/**
 * Why service `service` may not pass `parts` (a caller's message to it) on to `targets`, or undefined:
 * Baton serving an agent is a receiver of the terms, and honours them before any work starts (docs/data-use.md).
 * `targets` undefined: the service cannot say where the data goes (an application workflow that
 * declares no `forwardsTo`), so only terms that allow any forwarding are taken.
 */
export function refuseForward(
  parts: readonly Part[],
  service: string,
  targets: readonly ForwardTarget[] | undefined,
  rules: DataUseRules,
): { rule: ForwardRule; reason: string } | undefined {
  const malformed = refuseDataUseShape(parts);
  if (malformed) return { rule: 'malformed', reason: malformed };
  const named = (t: ForwardTarget, list: readonly string[]) => list.includes(t.name) || list.includes(t.card);
  for (const [i, part] of parts.entries()) {
    const use = dataUseOf(part);
    const label = use?.label ?? rules.unlabelled;
    const at = `part ${i + 1}`;
    if (label !== undefined && !rules.labels.includes(label))
      return {
        rule: 'label',
        reason: `${at} is labelled ${label}, which is not one of this service's labels (${rules.labels.join(', ')})`,
      };
    const terms = use?.terms;
    for (const agent of terms?.agents ?? []) {
      if (!knowsAgent(rules, agent))
        return { rule: 'unknown-agent', reason: `${at}'s terms let it go to ${agent}, which is no agent this service knows` };
    }
    const restricted = terms?.forwarding === 'none' || terms?.forwarding === 'listed-agents';
    if (!targets) {
      if (restricted)
        return {
          rule: 'undeclared-targets',
          reason: `${at}'s terms restrict forwarding (forwarding: ${terms?.forwarding}), and service ${service} does not declare the agents it passes data to (serve.services.${service}.dataUse.forwardsTo)`,
        };
      continue;
    }
    for (const target of targets) {
      if (terms?.forwarding === 'none')
        return {
          rule: 'forwarding',
          reason: `${at}'s terms forbid forwarding (forwarding: none), and service ${service} passes its request to agent ${target.name}`,
        };
      if (terms?.forwarding === 'listed-agents' && !named(target, terms.agents ?? []))
        return {
          rule: 'forwarding',
          reason: `${at}'s terms let it go only to ${(terms.agents ?? []).join(', ')}, and service ${service} passes its request to agent ${target.name}`,
        };
      if (label !== undefined && !target.cleared.includes(label))
        return {
          rule: 'clearance',
          reason: `${at} is labelled ${label}, and agent ${target.name}, to which service ${service} passes its request, is cleared only for ${target.cleared.join(', ')}`,
        };
    }
  }
  return undefined;
}
