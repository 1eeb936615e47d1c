/**
 * Data labels across a task graph (docs/data-use.md): a node's request has labels of its own, and it
 * inherits those of every node it depends on or refines, transitively, since what those nodes made of
 * their data comes to it. An edge that would carry data to an agent not cleared for it is refused when
 * the graph starts or the node is added, naming the edge. Pure and workflow-safe.
 */
import type { Part } from './a2a-types';
import { DATA_USE_EXTENSION, dataUseOf } from './data-use';
import type { GraphNodeSpec } from './graph-types';

/** A label a node's request inherits, and the node it comes from (the nearest that has it of its own). */
export interface InheritedLabel {
  label: string;
  from: string;
}

/** A node's labels: its own request's, and those it inherits. */
export interface NodeLabels {
  own: string[];
  inherited: InheritedLabel[];
}

/** What the worker's rules say for a graph's check: the labels there are, what unlabelled counts as, each agent's clearance. */
export interface GraphClearance {
  labels: string[];
  unlabelled?: string;
  cleared: Record<string, string[]>;
}

const partsOf = (node: GraphNodeSpec): readonly Part[] => node.parts ?? [];

/** Whether any node's request carries data use (cheap: no schema is built). */
export function graphCarriesDataUse(nodes: readonly GraphNodeSpec[]): boolean {
  return nodes.some((n) => partsOf(n).some((p) => p.metadata?.[DATA_USE_EXTENSION] !== undefined));
}

/** Every node's own and inherited labels; an unlabelled part counts as `unlabelled` when set. */
export function graphLabels(nodes: readonly GraphNodeSpec[], unlabelled?: string): Map<string, NodeLabels> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const own = (n: GraphNodeSpec): string[] => {
    const parts = partsOf(n);
    const labels = (parts.length ? parts : [{ text: n.text ?? '' }]).map((p) => dataUseOf(p)?.label ?? unlabelled);
    return [...new Set(labels.filter((l): l is string => l !== undefined))];
  };
  const done = new Map<string, NodeLabels>();
  const visit = (n: GraphNodeSpec): NodeLabels => {
    const known = done.get(n.id);
    if (known) return known;
    const inherited: InheritedLabel[] = [];
    const upstream = [...new Set([...n.dependsOn, ...(n.refines ? [n.refines] : [])])];
    for (const d of upstream) {
      const dep = byId.get(d);
      if (!dep) continue;
      const of = visit(dep);
      for (const label of of.own) if (!inherited.some((i) => i.label === label)) inherited.push({ label, from: d });
      for (const i of of.inherited) if (!inherited.some((x) => x.label === i.label)) inherited.push(i);
    }
    const labels = { own: own(n), inherited };
    done.set(n.id, labels);
    return labels;
  };
  for (const n of nodes) visit(n);
  return done;
}

/**
 * Why the nodes `check` may not run under `clearance`, one line each (none: they may): a label that is
 * not one of the labels, a node's own request its agent is not cleared for, or an edge that would carry
 * data labelled so to an agent not cleared for it. `all` is every node of the graph (for what `check` inherits).
 */
export function refuseGraphData(check: readonly GraphNodeSpec[], all: readonly GraphNodeSpec[], clearance: GraphClearance): string[] {
  const ids = new Set(all.map((n) => n.id));
  const labels = graphLabels([...all, ...check.filter((n) => !ids.has(n.id))], clearance.unlabelled);
  const problems: string[] = [];
  for (const node of check) {
    const of = labels.get(node.id);
    if (!of) continue;
    const cleared = clearance.cleared[node.agent] ?? [];
    const only = `is cleared only for ${cleared.join(', ') || 'nothing'}`;
    for (const label of of.own) {
      if (!clearance.labels.includes(label))
        problems.push(
          `node ${node.id}: its request is labelled ${label}, which is not one of dataUse.labels (${clearance.labels.join(', ')})`,
        );
      else if (!cleared.includes(label))
        problems.push(
          `node ${node.id}: its request is labelled ${label}, and agent ${node.agent} ${only} (agents.${node.agent}.clearance)`,
        );
    }
    for (const { label, from } of of.inherited) {
      if (!cleared.includes(label))
        problems.push(
          `edge ${from} → ${node.id} carries data labelled ${label} to agent ${node.agent}, which ${only} (agents.${node.agent}.clearance)`,
        );
    }
  }
  return problems;
}
