/**
 * How a graph prints for people: the DAG as layers (a node is indented by its depth and names what
 * it waits for), each node's state, the contexts, and the latest accepted version of each artifact.
 */
import type { GraphNodeRecord, GraphRecord } from '../shared/graph-types';

/** Longest path from a root, so every node is printed below all of its dependencies. */
function depths(nodes: GraphNodeRecord[]): Map<string, number> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const depth = new Map<string, number>();
  const of = (id: string, seen = new Set<string>()): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) return 0;
    seen.add(id);
    const d = Math.max(-1, ...(byId.get(id)?.dependsOn ?? []).map((dep) => of(dep, seen))) + 1;
    depth.set(id, d);
    return d;
  };
  for (const n of nodes) of(n.id);
  return depth;
}

/** A node's state in one word: its outcome once settled. */
export function nodeState(n: GraphNodeRecord): string {
  return n.status === 'SETTLED' ? (n.outcome ?? 'SETTLED') : n.status;
}

const short = (id: string | undefined): string => (id ? (id.length > 12 ? `${id.slice(0, 8)}…` : id) : '-');

/** What a running node's delegation is doing now (read from the child), for the text view. */
export type LiveNodes = Map<string, { status: string; pending?: { kind: string; requestId: string } }>;

export function formatGraph(g: GraphRecord, live: LiveNodes = new Map()): string {
  const depth = depths(g.nodes);
  const ordered = [...g.nodes].sort((a, b) => (depth.get(a.id) ?? 0) - (depth.get(b.id) ?? 0));
  const width = Math.max(...g.nodes.map((n) => n.id.length + 2 * (depth.get(n.id) ?? 0)));
  const agentWidth = Math.max(...g.nodes.map((n) => n.agent.length));
  const lines = [
    `graph       ${g.id}`,
    `status      ${g.status}${g.outcome ? `  ${g.outcome.kind}` : ''}   (${g.failurePolicy}, concurrency ${g.concurrency})`,
    `started by  Baton ${g.batonVersion ? `v${g.batonVersion}` : 'before 0.2'}`,
    ...(g.outcome?.reasons ?? []).map((r) => `            - ${JSON.stringify(r)}`),
    'nodes',
  ];
  for (const n of ordered) {
    const name = `${'  '.repeat(depth.get(n.id) ?? 0)}${n.id}`.padEnd(width);
    const after = n.dependsOn.length ? `  after ${n.dependsOn.join(', ')}` : '';
    const refines = n.refines ? `  refines ${n.refines}` : '';
    const task = n.remote.taskId ? `  task ${short(n.remote.taskId)}` : '';
    lines.push(
      `  ${name}  ${nodeState(n).padEnd(15)} ${n.agent.padEnd(agentWidth)}${after}${refines}${task}${n.followUp ? '  (follow-up)' : ''}`,
    );
    const now = live.get(n.id);
    if (n.status === 'RUNNING' && now) {
      lines.push(
        `  ${' '.repeat(width)}  - now ${now.status}${now.pending ? `: waiting for ${now.pending.kind}, answer with \`baton ${now.pending.kind === 'auth' ? 'authorize' : now.pending.kind === 'review' ? 'review' : 'answer'} ${n.delegationId}\`` : ''}`,
      );
    }
    if (n.status === 'SKIPPED' || (n.status === 'SETTLED' && n.outcome !== 'ACCEPTED'))
      lines.push(`  ${' '.repeat(width)}  - ${JSON.stringify(n.reasons.join('; '))}`);
  }
  const contexts = Object.entries(g.contexts);
  if (contexts.length) lines.push(`contexts    ${contexts.map(([agent, ctx]) => `${agent} ${short(ctx)}`).join(', ')}`);
  if (g.lineage.length) lines.push('artifacts   (latest accepted version of each, per context)');
  for (const entry of g.lineage) {
    const latest = entry.versions.find((v) => v.artifactId === entry.latestAccepted);
    const index = latest ? entry.versions.indexOf(latest) + 1 : 0;
    lines.push(
      latest
        ? `  ${entry.name}  v${index} of ${entry.versions.length}  ${latest.artifactId}  node ${latest.nodeId}  ${latest.size} B sha256:${latest.sha256.slice(0, 16)}…  context ${short(entry.contextId)}`
        : `  ${entry.name}  no accepted version of ${entry.versions.length}  context ${short(entry.contextId)}`,
    );
  }
  return lines.join('\n');
}

/** One progress line: how many nodes settled, which run, for how long. */
export function graphProgress(g: GraphRecord): string {
  const settled = g.nodes.filter((n) => n.status === 'SETTLED' || n.status === 'SKIPPED').length;
  const running = g.nodes.filter((n) => n.status === 'RUNNING').map((n) => n.id);
  return `${g.id}  ${g.status}  ${settled}/${g.nodes.length} done${running.length ? `  running ${running.join(', ')}` : ''}`;
}
