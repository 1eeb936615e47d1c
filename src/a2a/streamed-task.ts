/**
 * The task as one stream told it: the Task snapshot the stream began with, with every status and
 * artifact event after it applied the way the agent applies them (a status replaces the status, an
 * artifact replaces the one with its id, `append` adds its parts). When the stream reached an at-rest
 * state and nothing about it was doubtful, this copy is the agent's own and no GetTask is needed to
 * confirm it (decision 0020). Doubtful: the stream did not begin with the task, named another task,
 * repeated a chunk (decision 0015), appended to an artifact it never started, or outgrew `maxBytes`.
 */
import type { StreamEvent, Task } from '../shared/a2a-types';

export class StreamedTask {
  private current?: Task;
  private bytes = 0;
  private lastChunk = new Map<string, string>();
  /** Why this copy cannot stand for the agent's, once something made it doubtful. */
  private doubt?: string;

  /**
   * @param taskId The task the stream is about; unknown for a send's stream until its first event.
   * @param maxBytes Largest artifact content kept in memory; a larger task is read or assembled instead.
   */
  constructor(
    private taskId: string | undefined,
    private readonly maxBytes: number,
  ) {}

  /** The task so far; undefined before the stream's Task snapshot. */
  get task(): Task | undefined {
    return this.current;
  }

  /** The task, if this stream's copy of it can be trusted as the agent's own; else undefined. */
  get trusted(): Task | undefined {
    return this.doubt ? undefined : this.current;
  }

  /** What made the copy doubtful, for the log. */
  get doubtful(): string | undefined {
    return this.doubt;
  }

  /** Applies one event. The status is followed even once the copy is doubtful; the artifacts are not. */
  apply(event: StreamEvent): void {
    if ('task' in event) {
      if (this.taskId !== undefined && event.task.id !== this.taskId) return this.distrust(`the stream named task ${event.task.id}`);
      this.taskId = event.task.id;
      this.current = { ...event.task, artifacts: [...(event.task.artifacts ?? [])] };
      this.bytes = JSON.stringify(this.current.artifacts).length;
      this.lastChunk.clear();
      return this.checkSize();
    }
    if ('message' in event) return;
    const update = 'statusUpdate' in event ? event.statusUpdate : event.artifactUpdate;
    if (!this.current) {
      if (this.taskId === undefined || update.taskId !== this.taskId) return this.distrust('an update came before the task snapshot');
      // A follow-up turn's stream may carry only updates (agents on the Python SDK answer a turn on an
      // existing task so): the task is known, its copy starts from them and is read when it comes to rest.
      this.current = {
        id: this.taskId,
        contextId: update.contextId,
        status: 'statusUpdate' in event ? event.statusUpdate.status : { state: 'TASK_STATE_WORKING' },
        artifacts: [],
      };
      return this.distrust('the stream did not begin with the task');
    }
    if (update.taskId !== this.current.id) return this.distrust(`an update named task ${update.taskId}`);
    if ('statusUpdate' in event) {
      this.current.status = event.statusUpdate.status;
      return;
    }
    if (this.doubt) return;
    const { artifact, append } = event.artifactUpdate;
    const artifacts = this.current.artifacts ?? [];
    const at = artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
    const chunk = JSON.stringify(artifact.parts);
    this.bytes += chunk.length;
    if (!append) {
      if (at >= 0) artifacts[at] = artifact;
      else artifacts.push(artifact);
    } else {
      const existing = artifacts[at];
      if (!existing) return this.distrust(`a chunk of artifact ${artifact.artifactId} came before its start`);
      // A chunk identical to the one before is a repeated line or a repeated event: only the agent knows.
      if (this.lastChunk.get(artifact.artifactId) === chunk) return this.distrust(`a chunk of artifact ${artifact.artifactId} came twice`);
      artifacts[at] = { ...existing, parts: [...existing.parts, ...artifact.parts] };
    }
    this.lastChunk.set(artifact.artifactId, chunk);
    this.current.artifacts = artifacts;
    this.checkSize();
  }

  private checkSize(): void {
    if (this.bytes > this.maxBytes) this.distrust(`its artifacts passed ${this.maxBytes} bytes`);
  }

  private distrust(why: string): void {
    this.doubt ??= why;
    // What was assembled can no longer be used: it is not kept in memory either.
    if (this.current) this.current.artifacts = [];
  }
}
