/**
 * The worker's artifact store, counting what it writes (`baton_artifacts_stored_total`,
 * `baton_artifact_bytes_stored_total`). Everything else goes straight to the store underneath.
 */
import { recordArtifactStored } from '../telemetry/metrics';
import type { ArtifactStore, StoredBytes } from './store';
import { aroundWrites } from './store-writes';

const counted = (stored: StoredBytes): StoredBytes => {
  recordArtifactStored(stored.size);
  return stored;
};

export function meteredStore<S extends ArtifactStore>(store: S): S {
  return aroundWrites(store, {
    put: async (put, bytes) => counted(await put(bytes)),
    commit: async (commit) => counted(await commit()),
  });
}
