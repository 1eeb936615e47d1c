/**
 * What an MCP session may use beyond its requests: the work its tools start and the waits they hold
 * (the caller's budget, over HTTP). `baton mcp` over stdio serves one local person: no limits.
 */
import type { Lease } from '../limits/budget-store';

export interface McpLimits {
  /** Takes `count` delegations from the caller's work allowance, or throws. */
  startWork(count: number, what?: string): Promise<void>;
  /** Holds one of the caller's streams (a tool that waits, a watched resource), or throws. */
  openStream(): Promise<Lease>;
}

export const NO_LIMITS: McpLimits = {
  startWork: () => Promise.resolve(),
  openStream: () => Promise.resolve({ release: () => Promise.resolve() }),
};

/** Runs `fn` holding a stream of `limits` when `holds` (a wait of more than nothing), released after. */
export async function holdingStream<T>(limits: McpLimits, holds: boolean, fn: () => Promise<T>): Promise<T> {
  if (!holds) return fn();
  const lease = await limits.openStream();
  try {
    return await fn();
  } finally {
    await lease.release();
  }
}
