/** `/inbox`: every request the caller's delegations wait for, one entry each. */
import type { Router } from 'express';
import type { DelegationRecord } from '../../shared/delegation-types';
import { handle, type RouteKit } from './route-kit';

export function inboxRoutes(api: Router, kit: RouteKit): void {
  api.get(
    '/inbox',
    handle(async (req, res) => {
      const { records, reads } = await kit.as(req).baton.inbox({ cache: kit.inboxCache });
      // Each delegation read costs a request: a caller with many waiting pays for reading them.
      await kit.budget.fanOut(kit.as(req).caller, reads);
      res.json({ requests: records.map(inboxItem) });
    }),
  );
}

/** Inbox entries: one per pending request, its prompt as the agent gave it (untrusted text). */
function inboxItem(r: DelegationRecord) {
  const p = r.pending as NonNullable<DelegationRecord['pending']>;
  // A reviewer decides on the artifacts: their names and digests come along (the content is on the delegation).
  const artifacts =
    p.kind === 'review'
      ? {
          artifacts: r.artifacts.map((a) => ({
            artifactId: a.artifactId,
            ...(a.name ? { name: a.name } : {}),
            ...(a.mediaType ? { mediaType: a.mediaType } : {}),
            size: a.size,
            sha256: a.sha256,
          })),
        }
      : {};
  return {
    delegationId: r.id,
    agent: r.agent.name,
    status: r.status,
    kind: p.kind,
    requestId: p.requestId,
    prompt: p.prompt,
    taskId: p.taskId,
    observedAt: p.observedAt,
    ...(p.credentials ? { credentials: p.credentials } : {}),
    ...artifacts,
  };
}
