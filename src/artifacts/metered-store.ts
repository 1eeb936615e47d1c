/**
 * The worker's artifact store, counting what it writes (`baton_artifacts_stored_total`,
 * `baton_artifact_bytes_stored_total`). Everything else goes straight to the store underneath.
 */
import { recordArtifactStored } from '../telemetry/metrics';
import type { ArtifactStore, StagingFile, StoredBytes } from './store';

export function meteredStore<S extends ArtifactStore>(store: S): S {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'put')
        return async (bytes: Uint8Array): Promise<StoredBytes> => {
          const stored = await target.put(bytes);
          recordArtifactStored(stored.size);
          return stored;
        };
      if (key === 'staging')
        return (name: string): StagingFile => {
          const file = target.staging(name);
          const commit = file.commit.bind(file);
          return Object.assign(file, {
            commit: async (): Promise<StoredBytes> => {
              const stored = await commit();
              recordArtifactStored(stored.size);
              return stored;
            },
          });
        };
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
