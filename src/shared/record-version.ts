/**
 * The delegation record's JSON has a version (`recordVersion`), so the CLI and the API can read what
 * older workflows return: their records are brought to the current shape on read, never rewritten in
 * history. Version 1 (Baton 0.1, no field) lacked `recordVersion` and `batonVersion`, and its earliest
 * records some of the lists that later became required.
 */
import type { DelegationRecord } from './delegation-types';

/** The record shape this code writes. */
export const RECORD_VERSION = 2;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A record as the current code describes it, from whatever a workflow of any Baton version returned.
 * A record newer than this code knows is passed on as it is: its added fields are kept, not dropped.
 */
export function readRecord(raw: unknown): DelegationRecord {
  if (!isObject(raw)) throw new TypeError('a delegation record is a JSON object');
  const version = typeof raw.recordVersion === 'number' ? raw.recordVersion : 1;
  if (version >= RECORD_VERSION) return raw as unknown as DelegationRecord;
  const remote = isObject(raw.remote) ? raw.remote : {};
  return {
    ...raw,
    recordVersion: RECORD_VERSION,
    remote: { ...remote, history: Array.isArray(remote.history) ? remote.history : [] },
    pending: raw.pending ?? null,
    turns: Array.isArray(raw.turns) ? raw.turns : [],
    notes: Array.isArray(raw.notes) ? raw.notes : [],
    refusedSignals: Array.isArray(raw.refusedSignals) ? raw.refusedSignals : [],
    remoteCalls: typeof raw.remoteCalls === 'number' ? raw.remoteCalls : 0,
    artifacts: Array.isArray(raw.artifacts) ? raw.artifacts : [],
  } as unknown as DelegationRecord;
}
