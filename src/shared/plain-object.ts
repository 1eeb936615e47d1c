/** Reading untrusted JSON: an object's fields, and what an A2A send names. Pure. */

/** `v` when it is a plain JSON object (not null, not an array), else undefined. */
export const objectOf = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** The task a SendMessage-shaped request (`{ message: { taskId } }`) continues, or undefined when it starts one. */
export function sentToTask(params: unknown): string | undefined {
  const taskId = objectOf(objectOf(params)?.message)?.taskId;
  return typeof taskId === 'string' && taskId !== '' ? taskId : undefined;
}
