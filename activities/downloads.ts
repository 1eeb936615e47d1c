/**
 * URL parts of a result, downloaded under the agent's download policy into the artifact store.
 */
import { cancellationSignal } from '@temporalio/activity';
import type { Logger } from 'pino';
import { downloadUrlPart } from '../src/artifacts/url-download';
import type { RemoteSnapshot } from '../src/shared/delegation-types';
import { isActive } from '../src/shared/remote-state';
import type { ActivityContext } from './context';

/** Downloads the URL parts of a snapshot's artifacts once the task left its active state, when the agent's entry has a download policy. */
export async function withDownloads(
  ctx: ActivityContext,
  agentName: string,
  snapshot: RemoteSnapshot,
  log: Logger,
  signal: AbortSignal = cancellationSignal(),
): Promise<RemoteSnapshot> {
  const policy = ctx.agents.entryOf(agentName).downloads;
  const store = ctx.deps.store;
  if (!policy || !store || isActive(snapshot.state)) return snapshot;
  for (const artifact of snapshot.artifacts) {
    const urls = (artifact.parts ?? []).flatMap((p) =>
      p.url !== undefined ? [{ url: p.url, ...(p.mediaType ? { mediaType: p.mediaType } : {}) }] : [],
    );
    if (!urls.length) continue;
    artifact.downloads = [];
    for (const part of urls) {
      const got = await downloadUrlPart(part, policy, store, { lookup: ctx.deps.lookup, signal });
      log.info(
        {
          artifactId: artifact.artifactId,
          url: part.url,
          ok: got.ok,
          ...(got.ok ? { sha256: got.sha256, size: got.size } : { reason: got.reason, detail: got.detail }),
        },
        got.ok ? 'URL part downloaded' : 'URL part refused',
      );
      artifact.downloads.push(got);
    }
  }
  return snapshot;
}
