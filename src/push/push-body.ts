/**
 * What a push call says, read as untrusted input: only which task it is about. The state itself is
 * read from the agent with GetTask (a push is a hint), so nothing else in the body is trusted.
 */
import { z } from 'zod';

const id = z.string().min(1).max(256);

// A2A 1.0: a StreamResponse envelope. 0.3: the bare Task or event object with `kind`.
const PushBodySchema = z.union([
  z.object({ task: z.object({ id }).loose() }).loose(),
  z.object({ statusUpdate: z.object({ taskId: id }).loose() }).loose(),
  z.object({ artifactUpdate: z.object({ taskId: id }).loose() }).loose(),
  z.object({ kind: z.literal('task'), id }).loose(),
  z.object({ kind: z.enum(['status-update', 'artifact-update']), taskId: id }).loose(),
]);

/** The task a push body is about, or undefined when the body is not a push we understand. */
export function taskIdOfPush(body: unknown): string | undefined {
  const parsed = PushBodySchema.safeParse(body);
  if (!parsed.success) return undefined;
  const b = parsed.data as {
    task?: { id: string };
    statusUpdate?: { taskId: string };
    artifactUpdate?: { taskId: string };
    kind?: string;
    id?: string;
    taskId?: string;
  };
  return b.task?.id ?? b.statusUpdate?.taskId ?? b.artifactUpdate?.taskId ?? (b.kind === 'task' ? b.id : b.taskId);
}
