/**
 * Checks on raw wire JSON that must run before the SDK reads it: the SDK's generated readers quietly
 * keep one member of a oneof when an agent sends several, which would hide a malformed answer.
 */

/** Members of `Part.content`, and of `StreamResponse` / `SendMessageResponse`. */
const ONEOFS: readonly (readonly string[])[] = [
  ['text', 'raw', 'url', 'data'],
  ['task', 'message', 'statusUpdate', 'artifactUpdate'],
];

/** Values that are the sender's own data, never protocol structure: not walked. */
const OPAQUE_KEYS = new Set(['data', 'metadata']);

/**
 * The path of the first object that carries several members of one oneof, or undefined.
 * Walks at most `maxNodes` nodes (the body is already size-capped).
 */
export function findOneofViolation(json: unknown, maxNodes = 100_000): string | undefined {
  const stack: { value: unknown; path: string }[] = [{ value: json, path: '$' }];
  let seen = 0;
  while (stack.length && seen++ < maxNodes) {
    const { value, path } = stack.pop() as { value: unknown; path: string };
    if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push({ value: v, path: `${path}[${i}]` }));
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    const obj = value as Record<string, unknown>;
    for (const members of ONEOFS) {
      const present = members.filter((m) => obj[m] !== undefined && obj[m] !== null);
      if (present.length > 1) return `${path} has ${present.join(' and ')} at once`;
    }
    for (const [key, child] of Object.entries(obj)) {
      if (!OPAQUE_KEYS.has(key)) stack.push({ value: child, path: `${path}.${key}` });
    }
  }
  return undefined;
}
