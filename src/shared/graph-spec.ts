/**
 * Graph spec checks beyond the schema: duplicate ids, unknown dependencies, unknown agents and cycles,
 * each problem naming the node. Pure; used by the CLI, the client and the graph workflow alike.
 */
import { BatonError } from './baton-error';
import { MAX_GRAPH_SPEC_CHARS } from './graph-limits';
import type { GraphNodeSpec, GraphSpec } from './graph-types';
import { graphSchemas } from './schemas-on-demand';

/** A spec that cannot run: every problem named (`problems`), the message one line. */
export class GraphSpecError extends BatonError {
  constructor(readonly problems: string[]) {
    super('InvalidRequest', `the graph spec is not valid: ${problems.join('; ')}`);
  }
}

/** With `refines` folded into `dependsOn`, so every later step reads one list. */
export function normalizeNode(node: GraphNodeSpec): GraphNodeSpec {
  return node.refines && !node.dependsOn.includes(node.refines) ? { ...node, dependsOn: [...node.dependsOn, node.refines] } : node;
}

/**
 * The first cycle found, as the node ids around it (first id repeated at the end), or undefined.
 * Depth-first with an explicit stack: a chain of 10,000 nodes would overflow a recursive one.
 */
export function findCycle(nodes: Pick<GraphNodeSpec, 'id' | 'dependsOn'>[]): string[] | undefined {
  const deps = new Map(nodes.map((n) => [n.id, n.dependsOn]));
  const state = new Map<string, 'visiting' | 'done'>();
  for (const root of nodes) {
    if (state.has(root.id)) continue;
    // The path from the root, each with the index of the next dependency to visit.
    const path: { id: string; next: number }[] = [{ id: root.id, next: 0 }];
    state.set(root.id, 'visiting');
    while (path.length) {
      const top = path[path.length - 1] as { id: string; next: number };
      const dep = (deps.get(top.id) ?? [])[top.next];
      top.next += 1;
      if (dep === undefined) {
        state.set(top.id, 'done');
        path.pop();
      } else if (state.get(dep) === 'visiting') {
        const ids = path.map((p) => p.id);
        return [...ids.slice(ids.indexOf(dep)), dep];
      } else if (!state.has(dep)) {
        state.set(dep, 'visiting');
        path.push({ id: dep, next: 0 });
      }
    }
  }
  return undefined;
}

/** Problems with `nodes`, given the ids already in the graph and, when known, the agents in the registry. */
export function graphProblems(nodes: GraphNodeSpec[], opts: { existing?: string[]; knownAgents?: string[] } = {}): string[] {
  const problems: string[] = [];
  const ids = new Set(opts.existing ?? []);
  for (const n of nodes) {
    if (ids.has(n.id)) problems.push(`node ${n.id}: the id is used twice`);
    ids.add(n.id);
  }
  for (const n of nodes) {
    for (const dep of n.dependsOn) if (!ids.has(dep)) problems.push(`node ${n.id}: depends on unknown node ${dep}`);
    if (n.refines && !ids.has(n.refines)) problems.push(`node ${n.id}: refines unknown node ${n.refines}`);
    if (n.dependsOn.includes(n.id)) problems.push(`node ${n.id}: depends on itself`);
    if (opts.knownAgents && !opts.knownAgents.includes(n.agent))
      problems.push(`node ${n.id}: unknown agent ${n.agent} (known: ${opts.knownAgents.join(', ') || 'none'})`);
  }
  if (!problems.length) {
    const cycle = findCycle(nodes);
    if (cycle) problems.push(`node ${cycle[0]}: dependency cycle ${cycle.join(' → ')}`);
  }
  return problems;
}

/** Parses and checks a spec (from YAML or JSON); throws GraphSpecError naming every problem. */
export function parseGraphSpec(raw: unknown, knownAgents?: string[]): GraphSpec {
  const parsed = graphSchemas().GraphSpecSchema.safeParse(raw);
  if (!parsed.success) {
    const nodes = (raw as { nodes?: unknown } | null)?.nodes;
    const where = (path: PropertyKey[]): string => {
      // nodes.2.dependsOn reads better as "node hotel: dependsOn" when the node has an id.
      const id =
        path[0] === 'nodes' && typeof path[1] === 'number' && Array.isArray(nodes)
          ? (nodes[path[1]] as { id?: unknown } | undefined)?.id
          : undefined;
      if (typeof id === 'string') return `node ${id}${path.length > 2 ? `: ${path.slice(2).join('.')}` : ''}`;
      return path.length ? path.join('.') : 'spec';
    };
    throw new GraphSpecError(parsed.error.issues.map((i) => `${where(i.path)}: ${i.message}`));
  }
  const spec = { ...parsed.data, nodes: parsed.data.nodes.map(normalizeNode) };
  const chars = JSON.stringify(spec).length;
  if (chars > MAX_GRAPH_SPEC_CHARS)
    throw new GraphSpecError([
      `spec: ${chars} characters as JSON, over the ${MAX_GRAPH_SPEC_CHARS} a graph carries; send large inputs as artifacts, or split the graph`,
    ]);
  const problems = graphProblems(spec.nodes, { knownAgents });
  if (problems.length) throw new GraphSpecError(problems);
  return spec;
}
