/**
 * How a graph prints for people: the page's DAG as layers (a node is indented by its depth and names
 * what it waits for), each node's state, the contexts, and the latest accepted version of each artifact.
 */
import { nodeState } from '../shared/graph-page';
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

const short = (id: string | undefined): string => (id ? (id.length > 12 ? `${id.slice(0, 8)}…` : id) : '-');

/** The command that answers a pending request, by the delegation status that says what it waits for. */
const ANSWER_WITH: Record<string, [string, string]> = {
  WAITING_INPUT: ['input', 'answer'],
  WAITING_AUTH: ['auth', 'authorize'],
  WAITING_REVIEW: ['review', 'review'],
};

export function formatGraph(g: GraphRecord): string {
  const depth = depths(g.nodes);
  const ordered = [...g.nodes].sort((a, b) => (depth.get(a.id) ?? 0) - (depth.get(b.id) ?? 0));
  const width = Math.max(0, ...g.nodes.map((n) => n.id.length + 2 * (depth.get(n.id) ?? 0)));
  const agentWidth = Math.max(0, ...g.nodes.map((n) => n.agent.length));
  const lines = [
    `graph       ${g.id}`,
    `status      ${g.status}${g.outcome ? `  ${g.outcome.kind}` : ''}   (${g.failurePolicy}, concurrency ${g.concurrency})`,
    `started by  Baton ${g.batonVersion ? `v${g.batonVersion}` : 'before 0.2'}${g.runs > 1 ? `   (run ${g.runs}: continued as new)` : ''}`,
    `progress    ${Object.entries(g.counts)
      .map(([state, n]) => `${n} ${state}`)
      .join(', ')} of ${g.size} node(s)`,
    ...(g.outcome?.reasons ?? []).map((r) => `            - ${JSON.stringify(r)}`),
    g.page.total > g.nodes.length
      ? `nodes       ${g.nodes.length ? `${g.page.offset + 1}–${g.page.offset + g.nodes.length}` : 'none'} of ${g.page.total}${g.page.state ? ` ${g.page.state}` : ''}${g.page.offset + g.nodes.length < g.page.total ? ` (next: --offset ${g.page.offset + g.nodes.length})` : ''}`
      : 'nodes',
  ];
  for (const n of ordered) {
    const name = `${'  '.repeat(depth.get(n.id) ?? 0)}${n.id}`.padEnd(width);
    const after = n.dependsOn.length ? `  after ${n.dependsOn.join(', ')}` : '';
    const refines = n.refines ? `  refines ${n.refines}` : '';
    const task = n.remote.taskId ? `  task ${short(n.remote.taskId)}` : '';
    lines.push(
      `  ${name}  ${nodeState(n).padEnd(15)} ${n.agent.padEnd(agentWidth)}${after}${refines}${task}${n.followUp ? '  (follow-up)' : ''}`,
    );
    const now = n.delegation;
    if (n.status === 'RUNNING' && now) {
      const waiting = ANSWER_WITH[now.status];
      lines.push(
        `  ${' '.repeat(width)}  - now ${now.status}${waiting && now.pendingRequest ? `: waiting for ${waiting[0]}, answer with \`baton ${waiting[1]} ${n.delegationId}\`` : ''}`,
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
    lines.push(
      latest
        ? `  ${entry.name}  v${latest.version} of ${entry.versionCount}  ${latest.artifactId}  node ${latest.nodeId}  ${latest.size} B sha256:${latest.sha256.slice(0, 16)}…  context ${short(entry.contextId)}`
        : `  ${entry.name}  no accepted version of ${entry.versionCount}  context ${short(entry.contextId)}`,
    );
  }
  if (g.lineageOmitted) lines.push(`  … and ${g.lineageOmitted} more version(s) of other artifacts (see each node's delegation)`);
  return lines.join('\n');
}

/** One progress line: how many nodes are done, how many run, which run of the workflow. */
export function graphProgress(g: GraphRecord): string {
  const done = g.size - (g.counts.PENDING ?? 0) - (g.counts.RUNNING ?? 0);
  const running = g.counts.RUNNING ? `  ${g.counts.RUNNING} running` : '';
  const names =
    g.counts.RUNNING && g.counts.RUNNING <= 5 && g.size <= g.nodes.length
      ? `: ${g.nodes
          .filter((n) => n.status === 'RUNNING')
          .map((n) => n.id)
          .join(', ')}`
      : '';
  return `${g.id}  ${g.status}  ${done}/${g.size} done${running}${names}${g.runs > 1 ? `  (run ${g.runs})` : ''}`;
}
