/**
 * The worker's artifact store, with every configured secret taken out of what it stores: bytes an
 * agent sent back that are too large for history go to the store by reference, and they must hold no
 * more of Baton's secrets than the inline ones (which the Redactor cleans). Stored bytes are then what
 * the record's digest names, and the record says `redacted`.
 */
import type { ArtifactStore, StagingFile, StoredBytes } from '../artifacts/store';
import type { Redactor } from './redactor';

export function redactingStore<S extends ArtifactStore>(store: S, redactor: Redactor): S {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'put')
        return async (bytes: Uint8Array): Promise<StoredBytes> => {
          const given = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
          const clean = redactor.bytes(given);
          const stored = await target.put(clean);
          return clean === given ? stored : { ...stored, redacted: true };
        };
      if (key === 'staging')
        return (name: string): StagingFile => {
          const file = target.staging(name);
          const commit = file.commit.bind(file);
          return Object.assign(file, {
            commit: async (): Promise<StoredBytes> => {
              if (!file.contents) {
                // A store that cannot show its staging file: the committed bytes are read back, and
                // cleaned ones stored in their place (the first blob is left to garbage collection).
                const committed = await commit();
                const given = await target.get(committed.ref);
                const clean = redactor.bytes(given);
                return clean === given ? committed : { ...(await target.put(clean)), redacted: true };
              }
              // Scanned as it is read; only a file that holds a secret is read whole, to be rewritten.
              if (!(await redactor.foundIn(file.contents()))) return commit();
              const pieces: Buffer[] = [];
              for await (const piece of file.contents()) pieces.push(piece);
              await file.reset(redactor.bytes(Buffer.concat(pieces)));
              return { ...(await commit()), redacted: true };
            },
          });
        };
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
