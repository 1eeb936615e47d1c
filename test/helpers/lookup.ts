/**
 * DNS answers chosen by a test: the guarded fetch takes a `lookup`, so a name can resolve anywhere
 * (inside, outside, differently each time) without touching the system resolver.
 */
import type { Lookup } from '../../src/a2a/guarded-fetch';

/** A lookup answering each name with the addresses `answer` gives (none: the name does not resolve). */
export function fakeLookup(answer: (host: string) => string[] | undefined): Lookup {
  return ((host: string, options: unknown, callback: unknown) => {
    const cb = (typeof options === 'function' ? options : callback) as (
      err: Error | null,
      a: { address: string; family: number }[],
    ) => void;
    const addresses = answer(host);
    if (!addresses?.length) return cb(new Error(`${host} does not resolve here`), []);
    cb(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  }) as Lookup;
}
