/**
 * The difference between two JSON documents as an RFC 6902 JSON Patch: what AG-UI's STATE_DELTA
 * carries. Objects are compared key by key; an array that only grew gets its new items added at the
 * end (a delegation's turns and artifacts grow that way); any other change replaces the value. Pure.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type PatchOperation = { op: 'add' | 'replace'; path: string; value: Json } | { op: 'remove'; path: string };

/** One RFC 6901 reference token: `~` and `/` escaped. */
const token = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

const isObject = (v: Json | undefined): v is { [key: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether two JSON values are the same (key order aside). */
export function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && sameJson(a[k], b[k]));
  }
  return false;
}

/** The operations that turn `before` into `after` (none when they are the same). */
export function jsonPatch(before: Json, after: Json, path = ''): PatchOperation[] {
  if (sameJson(before, after)) return [];
  if (isObject(before) && isObject(after)) {
    const ops: PatchOperation[] = [];
    for (const key of Object.keys(before)) if (!(key in after)) ops.push({ op: 'remove', path: `${path}/${token(key)}` });
    for (const [key, value] of Object.entries(after)) {
      const at = `${path}/${token(key)}`;
      if (!(key in before)) ops.push({ op: 'add', path: at, value });
      else ops.push(...jsonPatch(before[key] as Json, value, at));
    }
    return ops;
  }
  if (Array.isArray(before) && Array.isArray(after) && after.length > before.length && before.every((v, i) => sameJson(v, after[i]))) {
    return after.slice(before.length).map((value, i) => ({ op: 'add', path: `${path}/${before.length + i}`, value }));
  }
  return [{ op: 'replace', path, value: after }];
}
