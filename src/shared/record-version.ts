/**
 * The delegation record's JSON has a version (`recordVersion`), so the CLI and the API can read what
 * older workflows return: a record of an older shape would be brought to the current one on read,
 * never rewritten in history. Every release in the support window writes version 2; version 1 (Baton
 * 0.1, no field) is outside it and refused.
 */
import type { DelegationRecord } from './delegation-types';
import { OLDEST_SUPPORTED } from './support-window';

/** The record shape this code writes. */
export const RECORD_VERSION = 2;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A record as the current code describes it, from whatever a workflow of any Baton version returned.
 * A record newer than this code knows is passed on as it is: its added fields are kept, not dropped.
 */
export function readRecord(raw: unknown): DelegationRecord {
  if (!isObject(raw)) throw new TypeError('a delegation record is a JSON object');
  if (typeof raw.recordVersion !== 'number' || raw.recordVersion < RECORD_VERSION) {
    throw new TypeError(
      `delegation ${String(raw.id)} was written by Baton 0.1 (record version 1), outside this release's support window (Baton ${OLDEST_SUPPORTED} and later); read it with Baton 0.9`,
    );
  }
  return raw as unknown as DelegationRecord;
}
