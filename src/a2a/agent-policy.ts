/** The fetch policy an agent entry sets: its address rules, sizes and timeouts. */
import type { AgentEntry } from '../config/schema';
import type { FetchPolicy } from './guarded-fetch';

export function policyOf(entry: AgentEntry, maxResponseBytes = entry.limits.maxResponseBytes): FetchPolicy {
  return {
    allowHttp: entry.allowHttp,
    allowPrivateNetwork: entry.allowPrivateNetwork,
    maxResponseBytes,
    connectTimeoutMs: entry.limits.connectTimeoutMs,
    readTimeoutMs: entry.limits.readTimeoutMs,
    maxRedirects: entry.limits.maxRedirects,
  };
}
