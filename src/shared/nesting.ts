/**
 * How deep JSON data may nest. Data from agents and callers is refused past it, where it enters, as
 * a malformed message: deeper, the recursive steps after the boundary (JSON.stringify for history,
 * redaction, protobuf's Struct) can run out of stack, and a RangeError would be retried as a fault.
 */

/** Levels of arrays and objects a value may nest. A2A data parts and request bodies stay far below it. */
export const MAX_NESTING = 128;

/** Whether `value` nests deeper than `max` levels (walked without recursion, so any depth is safe to ask about). */
export function nestsDeeperThan(value: unknown, max = MAX_NESTING): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
