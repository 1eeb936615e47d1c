/**
 * The inbox's memory of what it has read: a waiting delegation's record does not change while the
 * same request waits (its prompt, its artifacts), so the inbox reads each (delegation, request) once
 * and then only asks visibility which requests still wait. Bounded by entries and by bytes.
 */
import type { DelegationRecord } from '../shared/delegation-types';

export class InboxCache {
  private readonly entries = new Map<string, { record: DelegationRecord; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 5_000,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  private static key(tenant: string, id: string, requestId: string): string {
    return JSON.stringify([tenant, id, requestId]);
  }

  /** The record read while request `requestId` of delegation `id` (of `tenant`) waited, if kept. */
  get(tenant: string, id: string, requestId: string): DelegationRecord | undefined {
    const key = InboxCache.key(tenant, id, requestId);
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    this.entries.delete(key); // re-inserted last: least recently used first out
    this.entries.set(key, hit);
    return hit.record;
  }

  /** Keeps `record`, read while its pending request waited. */
  set(tenant: string, record: DelegationRecord): void {
    if (!record.pending) return;
    const key = InboxCache.key(tenant, record.id, record.pending.requestId);
    const bytes = JSON.stringify(record).length;
    if (bytes > this.maxBytes / 100) return; // one huge record would push out everything else
    const old = this.entries.get(key);
    if (old) this.bytes -= old.bytes;
    this.entries.delete(key);
    this.entries.set(key, { record, bytes });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= e.bytes;
    }
  }
}
