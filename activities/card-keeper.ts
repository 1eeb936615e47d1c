/**
 * Keeps the agent cards delegations are sent under in the artifact store, once per digest, so each
 * delegation's history names its card instead of holding it (decision 0040). A card is kept for audit,
 * not needed to send: the store never holds a first send up for long, and whatever it cannot do in
 * time leaves the card in that delegation's history, as before.
 */
import type { Logger } from 'pino';
import type { CardSnapshot, FetchedCard, StoredCard } from '../src/a2a/card';
import type { ArtifactRef, ArtifactStore } from '../src/artifacts/store';

/**
 * How long a first send waits for the store, for the card's bytes (once per fetch) and for its own
 * entry in the reference index. A folder store takes well under a millisecond, an object store tens.
 */
export const CARD_STORE_WAIT_MS = 1_000;

/** One fetched card's place in the store: its put under way or done, and whether the store let it down. */
interface Keeping {
  put: Promise<ArtifactRef | undefined>;
  /** Until when a send waits for the put. */
  until: number;
  /** The store failed or did not answer in time: delegations keep this fetch's card in their history. */
  down: boolean;
}

/** `promise`'s value, or undefined when it takes longer than `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms), undefined)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

export class CardKeeper {
  /** Per fetched card: a card fetched again (every `cardTtl`) is stored again, which renews it. */
  private readonly keeping = new WeakMap<FetchedCard, Keeping>();

  constructor(
    private readonly store: ArtifactStore | undefined,
    private readonly logger: Logger,
    private readonly waitMs = CARD_STORE_WAIT_MS,
  ) {}

  /** What the history of delegation `holder` keeps of `fetched`: the stored card's reference, or the card. */
  async keep(fetched: FetchedCard, holder: string): Promise<StoredCard | CardSnapshot> {
    const ref = this.store ? await this.stored(this.store, fetched, holder) : undefined;
    return ref ? { stored: ref, fetchedAt: fetched.snapshot.fetchedAt } : fetched.snapshot;
  }

  private async stored(store: ArtifactStore, fetched: FetchedCard, holder: string): Promise<ArtifactRef | undefined> {
    let keeping = this.keeping.get(fetched);
    if (!keeping) {
      const put = store.put(fetched.bytes).then(
        (s) => s.ref,
        (err: unknown) => this.letDown(fetched, (err as Error).message),
      );
      keeping = { put, until: Date.now() + this.waitMs, down: false };
      this.keeping.set(fetched, keeping);
    }
    if (keeping.down) return undefined;
    const ref = await within(keeping.put, keeping.until - Date.now());
    if (!ref) return this.letDown(fetched, `no answer within ${this.waitMs} ms`);
    // The index names the delegation before its history names the card: garbage collection keeps the
    // card as long as the delegation can be read.
    const indexed = store.reference(ref, holder).then(
      () => true,
      (err: unknown) => {
        this.letDown(fetched, (err as Error).message);
        return false;
      },
    );
    if (await within(indexed, this.waitMs)) return ref;
    return this.letDown(fetched, `no answer within ${this.waitMs} ms`);
  }

  /** The store failed this fetch's card: said once, and its delegations keep the card in history. */
  private letDown(fetched: FetchedCard, why: string): undefined {
    const keeping = this.keeping.get(fetched);
    if (keeping?.down) return undefined;
    if (keeping) keeping.down = true;
    this.logger.warn({ cardUrl: fetched.url, err: why }, 'the artifact store did not take the card: delegations keep it in their history');
    return undefined;
  }
}
