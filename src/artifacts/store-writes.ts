/**
 * A store with something done around its writes (a `put`, a staging file's `commit`), everything else
 * passed straight through: how the worker counts what it stores and keeps secrets out of it.
 */
import type { ArtifactStore, StagingFile, StoredBytes } from './store';

export interface WriteHooks {
  /** Around `put`: call `put` (the store's own) with what should be stored. */
  put(put: (bytes: Uint8Array) => Promise<StoredBytes>, bytes: Uint8Array): Promise<StoredBytes>;
  /** Around a staging file's `commit`: call `commit` (the file's own) once it holds what should be stored. */
  commit(commit: () => Promise<StoredBytes>, file: StagingFile): Promise<StoredBytes>;
}

export function aroundWrites<S extends ArtifactStore>(store: S, hooks: WriteHooks): S {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'put') return (bytes: Uint8Array): Promise<StoredBytes> => hooks.put((b) => target.put(b), bytes);
      if (key === 'staging')
        return (name: string): StagingFile => {
          const file = target.staging(name);
          const commit = file.commit.bind(file);
          return Object.assign(file, { commit: () => hooks.commit(commit, file) });
        };
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
