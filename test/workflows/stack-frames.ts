/**
 * What a workflow sees of stack traces in its sandbox: the limit, how many frames an error takes, and
 * whether workflow code can raise the limit again (it cannot once the SDK froze the built-ins).
 */
export async function stackFramesWorkflow(): Promise<{ limit: number; frames: number; raised: boolean }> {
  const deep = (n: number): string => (n === 0 ? (new Error().stack ?? '') : deep(n - 1));
  const frames = deep(12)
    .split('\n')
    .filter((line) => line.trimStart().startsWith('at ')).length;
  let raised = false;
  try {
    Error.stackTraceLimit = 50;
    raised = Error.stackTraceLimit === 50;
  } catch {
    // Frozen: strict mode throws on the assignment.
  }
  return { limit: Error.stackTraceLimit, frames, raised };
}
