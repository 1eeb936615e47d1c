/**
 * The bytes of one artifact of a delegation record, whether inline in the record or stored by
 * reference: what the HTTP API's download and the MCP server's artifact resources both serve.
 */
import { BatonError } from '../shared/baton-error';
import type { ArtifactRecord } from '../shared/delegation-types';
import { contentOf } from './digest';
import { isRef, verified, type ArtifactStore } from './store';

export async function artifactBytes(delegationId: string, artifact: ArtifactRecord, store: ArtifactStore | undefined): Promise<Buffer> {
  if (artifact.parts) return contentOf(artifact.parts);
  if (!artifact.ref || !isRef(artifact.ref))
    throw new BatonError('NotFound', `artifact ${artifact.artifactId} of delegation ${delegationId} kept no content (only its digest)`);
  if (!store) throw new BatonError('Unavailable', 'this server has no artifact store configured; read it with baton artifacts get');
  if (!(await store.has(artifact.ref)))
    throw new BatonError(
      'NotFound',
      `artifact ${artifact.ref} is not in this server's store (a folder on another host? use artifacts.store: s3)`,
    );
  // Baton's stores check the digest; an application's own store may not.
  return verified(artifact.ref, await store.get(artifact.ref));
}
