/**
 * One page of a settled graph's record, read from the workflow's result (which lists every node). A
 * result written before 0.4.0 kept every node's artifacts in the record: it is read the same way, the
 * per-node details dropped (they are the node's delegation's).
 */
import type { OutcomeKind } from './delegation-types';
import { DEFAULT_GRAPH_PAGE, MAX_GRAPH_PAGE } from './graph-limits';
import type { GraphNodeRecord, GraphPageRequest, GraphRecord, LineageEntry } from './graph-types';

/**
 * What a page request asks for, within bounds. A Query's argument is anyone's: numbers are taken only
 * when they are numbers, a state only when it is a string.
 */
export function pageWindow(
  req: GraphPageRequest | null | undefined,
  most = MAX_GRAPH_PAGE,
): { offset: number; limit: number; state?: string } {
  const num = (v: unknown, otherwise: number): number => (typeof v === 'number' && Number.isFinite(v) ? Math.floor(v) : otherwise);
  return {
    offset: Math.max(0, num(req?.offset, 0)),
    limit: Math.min(most, Math.max(1, num(req?.limit, DEFAULT_GRAPH_PAGE))),
    ...(typeof req?.state === 'string' && req.state ? { state: req.state } : {}),
  };
}

/** Whether a node in state `word` (its status, or its outcome once settled) is on a page of `state`. */
export function onPage(word: string, state?: string): boolean {
  return !state || word === state || (state === 'SETTLED' && word !== 'PENDING' && word !== 'RUNNING' && word !== 'SKIPPED');
}

/** A node's state in one word: its outcome once settled. */
export function nodeState(n: Pick<GraphNodeRecord, 'status' | 'outcome'>): string {
  return n.status === 'SETTLED' ? (n.outcome ?? 'SETTLED') : n.status;
}

/** A record as an older Baton wrote it: no counts, no page, nodes with their details. */
type StoredRecord = Omit<GraphRecord, 'size' | 'counts' | 'page' | 'runs' | 'lineage'> &
  Partial<Pick<GraphRecord, 'size' | 'counts' | 'page' | 'runs'>> & {
    lineage: (Omit<LineageEntry, 'versionCount' | 'versions'> & {
      versionCount?: number;
      versions: (Omit<LineageEntry['versions'][number], 'version'> & { version?: number })[];
    })[];
  };

function row(n: GraphNodeRecord): GraphNodeRecord {
  return {
    id: n.id,
    agent: n.agent,
    dependsOn: n.dependsOn,
    ...(n.refines ? { refines: n.refines } : {}),
    ...(n.followUp ? { followUp: true } : {}),
    status: n.status,
    delegationId: n.delegationId,
    ...(n.outcome ? { outcome: n.outcome as OutcomeKind } : {}),
    reasons: n.reasons,
    remote: n.remote?.taskId ? { taskId: n.remote.taskId, ...(n.remote.state ? { state: n.remote.state } : {}) } : {},
  };
}

/** The page `req` asks for, from a record that holds every node. */
export function pageOfRecord(stored: StoredRecord, req: GraphPageRequest = {}): GraphRecord {
  const { offset, limit, state } = pageWindow(req);
  const all = stored.nodes.map(row);
  const matching = all.filter((n) => onPage(nodeState(n), state));
  const counts: Record<string, number> = {};
  for (const n of all) counts[nodeState(n)] = (counts[nodeState(n)] ?? 0) + 1;
  const { size: _size, counts: _counts, page: _page, runs, lineage, nodes: _nodes, ...header } = stored;
  return {
    ...header,
    size: all.length,
    counts,
    nodes: matching.slice(offset, offset + limit),
    page: { offset, limit, total: matching.length, ...(state ? { state } : {}) },
    lineage: lineage.map((e) => ({
      ...e,
      versionCount: e.versionCount ?? e.versions.length,
      versions: e.versions.map((v, i) => ({ ...v, version: v.version ?? i + 1 })),
    })),
    runs: runs ?? 1,
  };
}
