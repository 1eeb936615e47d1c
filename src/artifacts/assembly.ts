/**
 * Streamed artifacts assembled by artifactId: `append: false` starts (or replaces) an artifact,
 * `append: true` adds a chunk, `lastChunk` completes it into the store. A chunk identical to the one
 * just appended is ambiguous (A2A events carry no sequence number): a line the agent repeats, or one
 * event delivered twice. It is counted, not appended, and whoever uses the assembly lets the agent's
 * own copy decide (decision 0015). A Task snapshot, which a (re)subscription starts with, replaces
 * what was assembled so far: after a dropped stream or an activity retry the assembly restarts from
 * the agent's own accumulated state, never appending twice.
 */
import { createHash } from 'node:crypto';
import type { Artifact, ArtifactUpdate } from '../shared/a2a-types';
import type { ArtifactRecord } from '../shared/delegation-types';
import { contentOf } from './digest';
import type { ArtifactStore, StagingFile, StoredBytes } from './store';

interface Assembling {
  staging: StagingFile;
  name?: string;
  mediaType?: string;
  chunks: number;
  lastChunk?: string;
  done?: StoredBytes;
  /** Chunks identical to the one before, and their bytes: not appended, not forgotten. */
  repeats: number;
  repeatedBytes: number;
}

/** Only byte-like artifacts can be assembled by concatenation; data parts are left to GetTask. */
const assemblable = (a: Artifact): boolean =>
  a.parts.length > 0 && (a.parts.every((p) => p.raw !== undefined) || a.parts.every((p) => p.text !== undefined));

export class ArtifactAssembly {
  private readonly artifacts = new Map<string, Assembling>();

  constructor(
    private readonly store: ArtifactStore,
    private readonly key: string,
  ) {}

  private entry(a: Artifact): Assembling {
    let e = this.artifacts.get(a.artifactId);
    if (!e) {
      e = { staging: this.store.staging(`${this.key}/${a.artifactId}`), chunks: 0, repeats: 0, repeatedBytes: 0 };
      this.artifacts.set(a.artifactId, e);
    }
    if (a.name !== undefined) e.name = a.name;
    const mediaType = a.parts.find((p) => p.mediaType)?.mediaType;
    if (mediaType) e.mediaType ??= mediaType;
    return e;
  }

  /** A Task snapshot: its artifacts are the agent's accumulated state, which replaces ours. */
  async snapshot(artifacts: Artifact[]): Promise<void> {
    for (const a of artifacts.filter(assemblable)) {
      const e = this.entry(a);
      await e.staging.reset(contentOf(a.parts));
      e.chunks = a.parts.length;
      e.lastChunk = undefined;
      e.done = undefined;
      e.repeats = 0;
      e.repeatedBytes = 0;
    }
  }

  /** One artifact-update event. */
  async chunk(update: ArtifactUpdate): Promise<void> {
    if (!assemblable(update.artifact)) return;
    const e = this.entry(update.artifact);
    const bytes = contentOf(update.artifact.parts);
    const id = createHash('sha256').update(bytes).digest('hex');
    if (!update.append) {
      await e.staging.reset(bytes);
      e.chunks = 1;
      e.done = undefined;
    } else if (e.done || e.lastChunk === id) {
      e.repeats += 1;
      e.repeatedBytes += bytes.length;
      return;
    } else {
      await e.staging.append(bytes);
      e.chunks += 1;
    }
    e.lastChunk = id;
    if (update.lastChunk) e.done = await e.staging.commit();
  }

  /** Completed artifacts as history records (stored, never inline when larger than `inlineMaxBytes`). */
  async completed(inlineMaxBytes: number): Promise<Map<string, ArtifactRecord>> {
    const out = new Map<string, ArtifactRecord>();
    for (const [artifactId, e] of this.artifacts) {
      if (!e.done) continue;
      const record: ArtifactRecord = {
        artifactId,
        ...(e.name !== undefined ? { name: e.name } : {}),
        ...(e.mediaType ? { mediaType: e.mediaType } : {}),
        size: e.done.size,
        sha256: e.done.sha256,
        ref: e.done.ref,
        source: 'stream',
        ...(e.repeats ? { repeatedChunks: e.repeats } : {}),
        ...(e.done.redacted ? { redacted: true } : {}),
      };
      if (e.done.size <= inlineMaxBytes) {
        const bytes = await this.store.get(e.done.ref);
        record.parts = [
          e.mediaType?.startsWith('text/')
            ? { text: bytes.toString('utf8'), mediaType: e.mediaType }
            : { raw: bytes.toString('base64'), ...(e.mediaType ? { mediaType: e.mediaType } : {}) },
        ];
      }
      out.set(artifactId, record);
    }
    return out;
  }

  /** Per artifact that had them: chunks the stream repeated (identical to the one before). */
  get repeats(): Map<string, number> {
    return new Map([...this.artifacts].filter(([, e]) => e.repeats > 0).map(([id, e]) => [id, e.repeats]));
  }

  /** Bytes the agent's own copy of every artifact may have, at most: what was assembled plus every repeated chunk. */
  get bytesAsSent(): number {
    return [...this.artifacts.values()].reduce((n, e) => n + (e.done?.size ?? e.staging.size()) + e.repeatedBytes, 0);
  }

  /** True when every artifact seen so far was completed with `lastChunk`. */
  get allComplete(): boolean {
    return [...this.artifacts.values()].every((e) => e.done);
  }

  /** What to heartbeat: per artifact, chunks and bytes so far. */
  cursor(): Record<string, { chunks: number; bytes: number; done: boolean }> {
    return Object.fromEntries(
      [...this.artifacts].map(([id, e]) => [id, { chunks: e.chunks, bytes: e.done?.size ?? e.staging.size(), done: Boolean(e.done) }]),
    );
  }

  /** Drops unfinished staging files. */
  discard(): void {
    for (const e of this.artifacts.values()) if (!e.done) e.staging.discard();
  }
}
