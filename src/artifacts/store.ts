/**
 * The content-addressed artifact store: bytes live here, history keeps only sha256, size and the
 * reference. Filesystem by default, an S3-compatible object store (s3-store.ts) or the application's
 * own `ArtifactStore` otherwise. Beside the
 * bytes, a reference index (`refs/<digest>/<holder>`) says which workflows' histories name each blob,
 * so `baton artifacts gc` can remove bytes nobody can read any more.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { BatonError } from '../shared/baton-error';

/** The filesystem store's folder when the config names none (relative to the working folder). */
export const DEFAULT_ARTIFACTS_PATH = '.baton/artifacts';

/** Where stored bytes are: `sha256:<hex>`, the same for the same bytes on every store. */
export type ArtifactRef = `sha256:${string}`;

export interface StoredBytes {
  ref: ArtifactRef;
  sha256: string;
  size: number;
  /** Set when a configured secret in the bytes was replaced by a marker before they were stored (redacting-store.ts). */
  redacted?: boolean;
}

export interface ArtifactStore {
  /** Stores bytes (a no-op when the same bytes are there already). */
  put(bytes: Uint8Array): Promise<StoredBytes>;
  get(ref: ArtifactRef): Promise<Buffer>;
  has(ref: ArtifactRef): Promise<boolean>;
  /** A staging file to assemble a streamed artifact in, kept across activity retries on this host. */
  staging(key: string): StagingFile;
  /**
   * Notes that the workflow `holder` (a delegation id) has `ref` in its history: the reference index
   * `baton artifacts gc` reads. Idempotent.
   */
  reference(ref: ArtifactRef, holder: string): Promise<void>;
}

/** One stored blob as `baton artifacts gc` sees it. */
export interface StoredBlob {
  ref: ArtifactRef;
  size: number;
  /** When the bytes were last written or stored again (a put of bytes already there renews it). */
  modifiedAt: Date;
}

/** What garbage collection needs of a store besides reading and writing. */
export interface CollectableStore {
  blobs(): AsyncIterable<StoredBlob>;
  /** The workflows that referenced `ref`, from the reference index, sorted (the index's own order is its encoding's). */
  holders(ref: ArtifactRef): Promise<string[]>;
  /** Removes the bytes and their references. */
  remove(ref: ArtifactRef): Promise<void>;
}

/** An artifact being assembled chunk by chunk; `commit` moves it into the store by its digest. */
export interface StagingFile {
  /** Bytes written so far (0 when new). */
  size(): number;
  /** Drops what is there and starts again (a snapshot replaces the assembly). */
  reset(bytes?: Uint8Array): Promise<void>;
  append(bytes: Uint8Array): Promise<void>;
  /** The bytes written so far, in pieces (a store of an application's own may leave it out: redaction then reads the committed bytes back). */
  contents?(): AsyncIterable<Buffer>;
  commit(): Promise<StoredBytes>;
  discard(): void;
}

/** Stored bytes do not match their digest: they were altered in the store. */
export class ArtifactCorruptError extends BatonError {
  constructor(ref: ArtifactRef, detail: string) {
    super('Unavailable', `artifact ${ref} in the store is not what was stored (${detail}); restore it from a backup`);
  }
}

/** `bytes` read for `ref`, checked against its digest: every store's `get` ends here. */
export function verified(ref: ArtifactRef, bytes: Buffer): Buffer {
  if (createHash('sha256').update(bytes).digest('hex') !== ref.slice('sha256:'.length))
    throw new ArtifactCorruptError(ref, 'its digest differs');
  return bytes;
}

export const isRef = (ref: string): ref is ArtifactRef => /^sha256:[0-9a-f]{64}$/.test(ref);

/** A holder (workflow id) as one file or object name. */
export const holderFile = (holder: string): string => Buffer.from(holder, 'utf8').toString('base64url');

export class FsArtifactStore implements ArtifactStore, CollectableStore {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** The folder, as errors and reports name the store. */
  get where(): string {
    return this.root;
  }

  private pathOf(ref: ArtifactRef): string {
    if (!isRef(ref)) throw new Error(`not an artifact reference: ${ref}`);
    const hex = ref.slice('sha256:'.length);
    return join(this.root, 'sha256', hex.slice(0, 2), hex);
  }

  async put(bytes: Uint8Array): Promise<StoredBytes> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const ref: ArtifactRef = `sha256:${sha256}`;
    const path = this.pathOf(ref);
    if (!existsSync(path)) {
      mkdirSync(dirname(path), { recursive: true });
      // Written aside and renamed: a reader never sees half a file under a digest.
      const tmp = `${path}.${randomUUID()}.tmp`;
      writeFileSync(tmp, bytes);
      renameSync(tmp, path);
    } else {
      // Stored again: renewed, so garbage collection does not take it before the new holder is indexed.
      const now = new Date();
      utimesSync(path, now, now);
    }
    return { ref, sha256, size: bytes.byteLength };
  }

  async get(ref: ArtifactRef): Promise<Buffer> {
    return verified(ref, await readFile(this.pathOf(ref)));
  }

  async has(ref: ArtifactRef): Promise<boolean> {
    return existsSync(this.pathOf(ref));
  }

  private refsOf(ref: ArtifactRef): string {
    const hex = this.pathOf(ref).slice(join(this.root, 'sha256').length + 1);
    return join(this.root, 'refs', hex);
  }

  async reference(ref: ArtifactRef, holder: string): Promise<void> {
    const dir = this.refsOf(ref);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, holderFile(holder));
    if (!existsSync(file)) writeFileSync(file, '');
  }

  async holders(ref: ArtifactRef): Promise<string[]> {
    const dir = this.refsOf(ref);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .map((f) => Buffer.from(f, 'base64url').toString('utf8'))
      .sort();
  }

  async *blobs(): AsyncIterable<StoredBlob> {
    const top = join(this.root, 'sha256');
    if (!existsSync(top)) return;
    for (const prefix of readdirSync(top).sort()) {
      for (const name of readdirSync(join(top, prefix)).sort()) {
        const ref = `sha256:${name}`;
        if (!isRef(ref)) continue; // a .tmp file being written
        const stat = statSync(join(top, prefix, name));
        yield { ref, size: stat.size, modifiedAt: stat.mtime };
      }
    }
  }

  async remove(ref: ArtifactRef): Promise<void> {
    rmSync(this.pathOf(ref), { force: true });
    rmSync(this.refsOf(ref), { recursive: true, force: true });
  }

  staging(key: string): StagingFile {
    return localStaging(join(this.root, 'staging'), key, async (file, ref) => {
      const into = this.pathOf(ref);
      mkdirSync(dirname(into), { recursive: true });
      if (file) renameSync(file, into);
      else writeFileSync(into, new Uint8Array());
    });
  }
}

/**
 * A staging file on this host's disk (kept across activity retries here). `commit` reads its digest
 * and hands the file to `place` (undefined for an artifact that never got a byte), then discards it.
 */
export function localStaging(
  dir: string,
  key: string,
  place: (file: string | undefined, ref: ArtifactRef, size: number) => Promise<void>,
): StagingFile {
  const path = join(dir, createHash('sha256').update(key).digest('hex'));
  mkdirSync(dirname(path), { recursive: true });
  return {
    size: () => (existsSync(path) ? statSync(path).size : 0),
    async reset(bytes = new Uint8Array()) {
      writeFileSync(path, bytes);
    },
    async append(bytes) {
      const file = await open(path, 'a');
      try {
        await file.write(bytes);
      } finally {
        await file.close();
      }
    },
    async *contents() {
      if (existsSync(path)) for await (const chunk of createReadStream(path)) yield chunk as Buffer;
    },
    async commit() {
      const hash = createHash('sha256');
      let size = 0;
      const exists = existsSync(path);
      if (exists) {
        for await (const chunk of createReadStream(path)) {
          hash.update(chunk as Buffer);
          size += (chunk as Buffer).length;
        }
      }
      const sha256 = hash.digest('hex');
      const ref: ArtifactRef = `sha256:${sha256}`;
      await place(exists ? path : undefined, ref, size);
      rmSync(path, { force: true });
      return { ref, sha256, size };
    },
    discard: () => rmSync(path, { force: true }),
  };
}

/** Every artifact reference (`ref: "sha256:…"`) in a value bound for history, such as an activity's result. */
export function refsIn(value: unknown, found = new Set<ArtifactRef>(), depth = 0): Set<ArtifactRef> {
  if (depth > 32 || typeof value !== 'object' || value === null) return found;
  if (Array.isArray(value)) {
    for (const v of value) refsIn(v, found, depth + 1);
    return found;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k === 'ref' && typeof v === 'string' && isRef(v)) found.add(v);
    else refsIn(v, found, depth + 1);
  }
  return found;
}
