/**
 * Downloads an artifact's URL parts, only under the agent's download policy: allowlisted hosts, no
 * private or metadata addresses (checked on every resolved address and redirect), a size cap, a
 * timeout and the expected media type. The bytes go to the store and the digest is recorded; a
 * refusal says why, typed, and the URL stays as the reference.
 */
import { createGuardedFetch, FetchRefusedError, type Lookup } from '../a2a/guarded-fetch';
import { findCause } from '../a2a/cause';
import type { DownloadPolicy } from '../config/schema';
import type { DownloadRefusal, UrlDownload } from '../shared/delegation-types';
import type { ArtifactStore } from './store';

function hostAllowed(host: string, allowed: string[]): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return allowed.some((a) => {
    const rule = a.toLowerCase();
    return rule.startsWith('*.') ? h.endsWith(rule.slice(1)) && h.length > rule.length - 1 : h === rule;
  });
}

/** The media type without parameters (`text/plain; charset=utf-8` → `text/plain`). */
const bare = (type: string | null | undefined): string => (type ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

export async function downloadUrlPart(
  part: { url: string; mediaType?: string },
  policy: DownloadPolicy,
  store: ArtifactStore,
  opts: { lookup?: Lookup; signal?: AbortSignal } = {},
): Promise<UrlDownload> {
  const refuse = (reason: DownloadRefusal, detail: string): UrlDownload => ({ url: part.url, ok: false, reason, detail });
  let url: URL;
  try {
    url = new URL(part.url);
  } catch {
    return refuse('scheme', 'not an absolute URL');
  }
  const refuseHost = (host: string): string | undefined =>
    hostAllowed(host, policy.allowedHosts) ? undefined : `${host} is not in the agent's downloads.allowedHosts`;
  const unlisted = refuseHost(url.hostname);
  if (unlisted) return refuse('host-not-allowed', unlisted);
  const fetchImpl = createGuardedFetch(
    {
      // Every redirect hop must be on a listed host too, not only at an allowed address.
      refuseHost,
      allowHttp: policy.allowHttp,
      allowPrivateNetwork: policy.allowPrivateNetwork,
      maxResponseBytes: policy.maxBytes,
      connectTimeoutMs: Math.min(policy.timeoutMs, 10_000),
      readTimeoutMs: policy.timeoutMs,
      maxRedirects: policy.maxRedirects,
    },
    { lookup: opts.lookup },
  );
  const timeout = AbortSignal.timeout(policy.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  try {
    const res = await fetchImpl(url, { signal });
    if (!res.ok) {
      void res.body?.cancel();
      return refuse('http-status', `HTTP ${res.status}`);
    }
    const type = bare(res.headers.get('content-type'));
    const expected = part.mediaType ? [bare(part.mediaType)] : policy.mediaTypes.map(bare);
    if (expected.length && !expected.includes(type)) {
      void res.body?.cancel();
      return refuse('media-type', `served as ${type || 'no media type'}, expected ${expected.join(' or ')}`);
    }
    if (policy.mediaTypes.length && !policy.mediaTypes.map(bare).includes(type)) {
      void res.body?.cancel();
      return refuse('media-type', `${type || 'no media type'} is not in the agent's downloads.mediaTypes`);
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    const stored = await store.put(bytes);
    return { url: part.url, ok: true, ref: stored.ref, sha256: stored.sha256, size: stored.size, ...(type ? { mediaType: type } : {}) };
  } catch (err) {
    const refused = findCause(err, FetchRefusedError);
    if (refused) {
      const reason: DownloadRefusal = refused.refusal === 'size' ? 'too-large' : refused.refusal;
      return refuse(reason, refused.message);
    }
    if (timeout.aborted) return refuse('timeout', `no complete answer within ${policy.timeoutMs} ms`);
    return refuse('network', (err as Error).message);
  }
}
