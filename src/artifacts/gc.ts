/**
 * Artifact retention: bytes are kept as long as any workflow whose history names them can still be
 * read, then removed. Temporal deletes a closed workflow once the namespace's retention has passed, so
 * "can still be read" follows the namespace's retention without Baton keeping a clock of its own.
 *
 * A blob is removed only when (1) no workflow in the reference index that names it, nor any workflow
 * its id says is its parent (a graph `g/node`, an embedding `order/agent-1`: their histories hold the
 * child's record), can be read; and (2) it was last written longer ago than the retention. (2) covers
 * blobs stored by an activity whose result has not reached history yet, and bytes stored again for a
 * new delegation: a put of bytes already there renews them.
 */
import type { ArtifactRef, CollectableStore } from './store';

export interface GcOptions {
  store: CollectableStore;
  /** Whether the workflow can still be read: false only when the server says it is not found. */
  readable(workflowId: string): Promise<boolean>;
  /** The namespace's retention, in ms. */
  retentionMs: number;
  now?: Date;
  /** Remove what is found removable. Default false: a dry run. */
  apply?: boolean;
}

export interface BlobVerdict {
  ref: ArtifactRef;
  size: number;
  modifiedAt: string;
  /** The workflows the reference index says named it. */
  holders: string[];
  verdict: 'keep' | 'remove';
  reason: string;
}

export interface GcReport {
  applied: boolean;
  retentionMs: number;
  blobs: BlobVerdict[];
  kept: { count: number; bytes: number };
  removed: { count: number; bytes: number };
}

/** The workflow itself, then the parents its id names (`a/b/c`: `a/b`, then `a`). */
export function holderAndParents(id: string): string[] {
  const out = [id];
  for (let cut = id.lastIndexOf('/'); cut > 0; cut = id.lastIndexOf('/', cut - 1)) out.push(id.slice(0, cut));
  return out;
}

export async function collectArtifacts(opts: GcOptions): Promise<GcReport> {
  const now = opts.now ?? new Date();
  const known = new Map<string, Promise<boolean>>();
  const readable = (id: string): Promise<boolean> => {
    if (!known.has(id)) known.set(id, opts.readable(id));
    return known.get(id) as Promise<boolean>;
  };
  const report: GcReport = {
    applied: Boolean(opts.apply),
    retentionMs: opts.retentionMs,
    blobs: [],
    kept: { count: 0, bytes: 0 },
    removed: { count: 0, bytes: 0 },
  };
  for await (const blob of opts.store.blobs()) {
    const holders = (await opts.store.holders(blob.ref)).sort();
    let reason: string | undefined;
    for (const holder of holders) {
      for (const id of holderAndParents(holder)) {
        if (await readable(id)) {
          reason =
            id === holder ? `named by ${holder}, which can still be read` : `named by ${holder}, whose parent ${id} can still be read`;
          break;
        }
      }
      if (reason) break;
    }
    const age = now.getTime() - blob.modifiedAt.getTime();
    if (!reason && age <= opts.retentionMs) {
      reason = `${holders.length ? 'no workflow that named it can be read' : 'named by no workflow'}, but written within the retention (${ago(age)} ago)`;
    }
    const verdict: BlobVerdict = {
      ref: blob.ref,
      size: blob.size,
      modifiedAt: blob.modifiedAt.toISOString(),
      holders,
      verdict: reason ? 'keep' : 'remove',
      reason:
        reason ??
        (holders.length ? `no workflow that named it can be read (${holders.join(', ')})` : 'named by no workflow') +
          `, written ${ago(age)} ago`,
    };
    report.blobs.push(verdict);
    const tally = reason ? report.kept : report.removed;
    tally.count += 1;
    tally.bytes += blob.size;
    if (!reason && opts.apply) await opts.store.remove(blob.ref);
  }
  return report;
}

/** A duration in the largest whole unit (days, hours, minutes, seconds). */
export function ago(ms: number): string {
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
  ];
  for (const [unit, size] of units) if (ms >= size) return `${Math.floor(ms / size)}${unit}`;
  return `${Math.max(0, Math.floor(ms / 1000))}s`;
}
