/**
 * The only way Baton talks HTTP to an agent: a `fetch` given as `fetchImpl` to every SDK transport and
 * to the card resolver. It refuses addresses the agent entry does not allow (checked on the resolved
 * address of every connection), re-checks every redirect, caps response bodies, applies connect and
 * read timeouts, and honours the caller's AbortSignal.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, fetch as undiciFetch, Response as UndiciResponse } from 'undici';
import { refusalFor } from './address-policy';
import { findCause } from './cause';

export interface FetchPolicy {
  /** Allow plain http. Default false. */
  allowHttp: boolean;
  /** Allow private and loopback addresses. Default false. */
  allowPrivateNetwork: boolean;
  /** Largest response body, in bytes; a larger one is cut off with an error. */
  maxResponseBytes: number;
  /** Time to open a connection, in ms. */
  connectTimeoutMs: number;
  /** Longest silence while waiting for headers or between body chunks, in ms. */
  readTimeoutMs: number;
  /** Redirects followed (each one re-checked); 0 refuses every redirect. */
  maxRedirects: number;
  /** Why a host may not be fetched from, or undefined: checked on the first URL and on every redirect hop. Default: any host. */
  refuseHost?: (hostname: string) => string | undefined;
  /** Where `allowHttp` and `allowPrivateNetwork` are set, named in refusals. Default: the agent entry. */
  owner?: string;
}

export const DEFAULT_FETCH_POLICY: FetchPolicy = {
  allowHttp: false,
  allowPrivateNetwork: false,
  maxResponseBytes: 8 * 1024 * 1024,
  connectTimeoutMs: 5_000,
  readTimeoutMs: 120_000,
  maxRedirects: 3,
};

export type FetchRefusal = 'address' | 'scheme' | 'redirect' | 'size' | 'host-not-allowed';

/** A request the policy refused. Never retried: the answer would be the same. */
export class FetchRefusedError extends Error {
  constructor(
    readonly refusal: FetchRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'FetchRefusedError';
  }
}

export type Lookup = typeof dnsLookup;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The refusal of `hostname` when any address it resolved to is refused, else undefined. */
export function refusedResolution(
  hostname: string,
  addresses: readonly string[],
  allowPrivateNetwork: boolean,
  owner?: string,
): FetchRefusedError | undefined {
  for (const address of addresses) {
    const why = refusalFor(address, allowPrivateNetwork, owner);
    if (why) return new FetchRefusedError('address', `${hostname} resolves to ${why}`);
  }
  return undefined;
}

/** A DNS lookup that fails when any resolved address is refused (so no address of the set is used). */
function guardedLookup(allowPrivateNetwork: boolean, base: Lookup, owner?: string): Lookup {
  const lookup = (hostname: string, options: unknown, callback: unknown): void => {
    const cb = (typeof options === 'function' ? options : callback) as (
      err: Error | null,
      address?: string | LookupAddress[],
      family?: number,
    ) => void;
    const opts = (typeof options === 'object' && options !== null ? options : {}) as { all?: boolean; family?: number };
    base(hostname, { all: true, family: opts.family ?? 0 }, (err, addresses) => {
      if (err) return cb(err);
      const list = addresses as LookupAddress[];
      const refused = refusedResolution(
        hostname,
        list.map((a) => a.address),
        allowPrivateNetwork,
        owner,
      );
      if (refused) return cb(refused);
      if (opts.all) return cb(null, list);
      const first = list[0];
      if (!first) return cb(new Error(`${hostname} did not resolve`));
      cb(null, first.address, first.family);
    });
  };
  return lookup as Lookup;
}

function checkUrl(url: URL, policy: FetchPolicy): void {
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    throw new FetchRefusedError(
      'scheme',
      `${url.origin}: only https is allowed${url.protocol === 'http:' ? ` (${policy.owner ?? 'the agent entry'} does not set allowHttp)` : ''}`,
    );
  }
  // Literal addresses never reach the DNS lookup, so they are checked here.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const why = refusalFor(host, policy.allowPrivateNetwork, policy.owner);
    if (why) throw new FetchRefusedError('address', `${url.origin}: ${why}`);
  }
  // After the address: an address never allowed is refused as such, whatever its host's standing.
  const refusedHost = policy.refuseHost?.(url.hostname);
  if (refusedHost) throw new FetchRefusedError('host-not-allowed', refusedHost);
}

/** Passes the body through while counting; errors the stream once it passes the cap. */
function capBody(res: UndiciResponse, max: number, url: URL): UndiciResponse {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    void res.body?.cancel();
    throw new FetchRefusedError('size', `${url.origin}: response of ${declared} bytes is over the ${max}-byte cap`);
  }
  if (!res.body) return res;
  let seen = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > max) controller.error(new FetchRefusedError('size', `${url.origin}: response passed the ${max}-byte cap`));
      else controller.enqueue(chunk);
    },
  });
  return new UndiciResponse(res.body.pipeThrough(counter), { status: res.status, statusText: res.statusText, headers: res.headers });
}

function keepOnly(headers: Headers, names: string[]): Headers {
  const kept = new Headers();
  for (const name of names) {
    const value = headers.get(name);
    if (value !== null) kept.set(name, value);
  }
  return kept;
}

/** Builds a policy-bound fetch. `lookup` is for tests that need a name to resolve somewhere chosen. */
export function createGuardedFetch(
  policy: FetchPolicy,
  opts: {
    lookup?: Lookup;
    /** A client certificate to present (mutual TLS), and the CAs to check the server against. Default: none, the system's CAs. */
    tls?: { cert: Buffer; key: Buffer; ca?: Buffer };
  } = {},
): typeof fetch {
  const dispatcher = new Agent({
    connect: {
      ...(opts.tls ? { cert: opts.tls.cert, key: opts.tls.key, ...(opts.tls.ca ? { ca: opts.tls.ca } : {}) } : {}),
      timeout: policy.connectTimeoutMs,
      lookup: guardedLookup(policy.allowPrivateNetwork, opts.lookup ?? dnsLookup, policy.owner),
    },
    headersTimeout: policy.readTimeoutMs,
    bodyTimeout: policy.readTimeoutMs,
  });

  const guarded = async (input: string | URL | Request, init: RequestInit = {}): Promise<UndiciResponse> => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    let method = init.method ?? (input instanceof Request ? input.method : 'GET');
    let body = init.body;
    let headers = new Headers(init.headers);
    for (let hop = 0; ; hop++) {
      checkUrl(url, policy);
      let res: UndiciResponse;
      try {
        res = await undiciFetch(url, {
          ...(init as object),
          method,
          headers: Object.fromEntries(headers.entries()),
          body: body as never,
          redirect: 'manual',
          dispatcher,
        });
      } catch (err) {
        const refused = findCause(err, FetchRefusedError);
        if (!refused) throw err;
        throw hop > 0 ? new FetchRefusedError('redirect', `redirect to ${url.origin} refused: ${refused.message}`) : refused;
      }
      const location = res.headers.get('location');
      if (!REDIRECTS.has(res.status) || !location) return capBody(res, policy.maxResponseBytes, url);
      void res.body?.cancel();
      const next = new URL(location, url);
      if (hop >= policy.maxRedirects) {
        throw new FetchRefusedError(
          'redirect',
          `${url.origin}: redirect to ${next.origin} refused (${policy.maxRedirects === 0 ? 'redirects are not followed' : `more than ${policy.maxRedirects} redirects`})`,
        );
      }
      try {
        checkUrl(next, policy);
      } catch (err) {
        // A host the policy does not list keeps its own kind of refusal, wherever it appears.
        if ((err as FetchRefusedError).refusal === 'host-not-allowed') {
          throw new FetchRefusedError('host-not-allowed', `redirect to ${next.origin} refused: ${(err as Error).message}`);
        }
        throw new FetchRefusedError('redirect', `${url.origin}: redirect refused: ${(err as Error).message}`);
      }
      // Credentials go only to the origin they were meant for, as browsers do.
      if (next.origin !== url.origin) headers = keepOnly(headers, ['accept', 'content-type', 'a2a-version', 'a2a-extensions']);
      if (res.status === 303) {
        method = 'GET';
        body = undefined;
      }
      url = next;
    }
  };
  return guarded as unknown as typeof fetch;
}
