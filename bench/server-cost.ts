/**
 * What the Temporal server spends: the CPU of its processes (PostgreSQL's too, on the cluster) and
 * its persistence writes, counted from its own metrics (`persistence_requests` by operation).
 */
import { treeCpuSeconds } from './process-tree';

export interface ServerCost {
  /** CPU seconds the server's processes (and their children) used so far. */
  cpuSeconds(): number;
  /** Persistence writes so far: every operation that is not a read. */
  persistenceWrites(): Promise<number>;
}

/** Operations that only read (or check): the rest of `persistence_requests` writes. */
const READS = /^(Get|List|Read|Watch|Describe|Scan|Count|Query|Is|AssertShardOwnership)/;

/** Persistence writes the server's metrics endpoints counted so far. */
export async function persistenceWritesAt(urls: string[]): Promise<number> {
  let total = 0;
  for (const url of urls) {
    const text = await (await fetch(url, { signal: AbortSignal.timeout(10_000) })).text();
    for (const line of text.split('\n')) {
      const m = /^persistence_requests(?:_total)?\{([^}]*)\}\s+(\S+)/.exec(line);
      const operation = m && /operation="([^"]*)"/.exec(m[1] ?? '')?.[1];
      if (operation && !READS.test(operation)) total += Number(m[2]) || 0;
    }
  }
  return total;
}

export function serverCost(pids: () => number[], metricsUrls: string[]): ServerCost {
  return {
    cpuSeconds: () => pids().reduce((sum, pid) => sum + treeCpuSeconds(pid), 0),
    persistenceWrites: () => persistenceWritesAt(metricsUrls),
  };
}
