/**
 * The extensions an agent said it activated for a call: A2A servers list them in the `A2A-Extensions`
 * response header (`X-A2A-Extensions` in 0.3). The SDK's client does not hand response headers back,
 * so Baton's fetch notes the header in the store of the call being made (an AsyncLocalStorage the
 * caller opened around it), and the caller reads it afterwards.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const calls = new AsyncLocalStorage<{ activated?: string[] }>();

/** Runs `call`, and returns its result with the extensions its responses said were activated (undefined: none said). */
export async function withActivatedExtensions<T>(call: () => Promise<T>): Promise<{ result: T; activated?: string[] }> {
  const store: { activated?: string[] } = {};
  const result = await calls.run(store, call);
  return { result, ...(store.activated ? { activated: store.activated } : {}) };
}

/** Notes a response's activated extensions in the current call's store, if one is open. */
export function noteActivatedExtensions(headers: Headers): void {
  const store = calls.getStore();
  if (!store) return;
  const value = headers.get('a2a-extensions') ?? headers.get('x-a2a-extensions');
  if (value === null) return;
  // Bounded: an agent's header is untrusted; only URIs are kept, at most 32 of them.
  const uris = value
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u.length > 0 && u.length <= 2048)
    .slice(0, 32);
  store.activated = [...new Set([...(store.activated ?? []), ...uris])];
}
