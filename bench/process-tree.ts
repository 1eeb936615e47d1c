/**
 * A process and its descendants, read from /proc: `baton worker` runs its capped worker as a child
 * (src/cli/heap-cap.ts), so its memory and CPU are the whole tree's.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** `/proc/<pid>/stat`'s fields after the command name (field 3 onwards), or undefined once it is gone. */
function statOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ');
  } catch {
    return undefined;
  }
}

/** `pid` and every process under it. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const parent = Number(statOf(Number(name))?.[1]);
    if (parent) children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] ?? 0) ?? []));
  return tree;
}

/** Resident memory of `pid` and its descendants, in bytes. */
export function treeRssBytes(pid: number): number {
  let total = 0;
  for (const p of processTree(pid)) {
    try {
      total += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    } catch {
      // Ended between the listing and the read.
    }
  }
  return total;
}

/** CPU seconds (user and system, clock ticks of 1/100 s) `pid` and its descendants used so far. */
export function treeCpuSeconds(pid: number): number {
  let total = 0;
  for (const p of processTree(pid)) {
    const f = statOf(p);
    if (f) total += (Number(f[11]) + Number(f[12])) / 100;
  }
  return total;
}
