/**
 * The worker's artifact store, with every configured secret taken out of what it stores: bytes an
 * agent sent back that are too large for history go to the store by reference, and they must hold no
 * more of Baton's secrets than the inline ones (which the Redactor cleans). Stored bytes are then what
 * the record's digest names, and the record says `redacted`.
 */
import type { ArtifactStore, StoredBytes } from '../artifacts/store';
import { aroundWrites } from '../artifacts/store-writes';
import type { Redactor } from './redactor';

export function redactingStore<S extends ArtifactStore>(store: S, redactor: Redactor): S {
  return aroundWrites(store, {
    put: async (put, bytes): Promise<StoredBytes> => {
      const given = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const clean = redactor.bytes(given);
      const stored = await put(clean);
      return clean === given ? stored : { ...stored, redacted: true };
    },
    commit: async (commit, file): Promise<StoredBytes> => {
      if (!file.contents) {
        // A store that cannot show its staging file: the committed bytes are read back, and cleaned
        // ones stored in their place (the first blob is left to garbage collection).
        const committed = await commit();
        const given = await store.get(committed.ref);
        const clean = redactor.bytes(given);
        return clean === given ? committed : { ...(await store.put(clean)), redacted: true };
      }
      // Scanned as it is read; only a file that holds a secret is read whole, to be rewritten.
      if (!(await redactor.foundIn(file.contents()))) return commit();
      const pieces: Buffer[] = [];
      for await (const piece of file.contents()) pieces.push(piece);
      await file.reset(redactor.bytes(Buffer.concat(pieces)));
      return { ...(await commit()), redacted: true };
    },
  });
}
