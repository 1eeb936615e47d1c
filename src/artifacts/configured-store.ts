/**
 * The artifact store a config names: the filesystem folder (`store: fs`, the default) or the
 * S3-compatible object store (`store: s3`), sealed with the payload keys when encryption is on.
 */
import type { Logger } from 'pino';
import { configuredCodec } from '../codec/data-converter';
import type { BatonConfig } from '../config/schema';
import { S3ArtifactStore, s3StagingDir } from './s3-store';
import { DEFAULT_ARTIFACTS_PATH, FsArtifactStore, type ArtifactStore, type CollectableStore } from './store';

/** A store Baton's own commands can also collect and check. */
export type ConfiguredStore = ArtifactStore & CollectableStore & { readonly where: string; check?(): Promise<void> };

export function configuredStore(config: Partial<Pick<BatonConfig, 'artifacts' | 'encryption'>>, logger?: Logger): ConfiguredStore {
  const path = config.artifacts?.path ?? DEFAULT_ARTIFACTS_PATH;
  const s3 = config.artifacts?.store === 's3' ? config.artifacts.s3 : undefined;
  if (!s3) return new FsArtifactStore(path);
  // The data converter's own codec: the keys are read once per process, for payloads and blobs alike.
  const codec = configuredCodec(config);
  return new S3ArtifactStore({
    config: s3,
    stagingDir: s3StagingDir(path),
    ...(codec ? { codec } : {}),
    ...(logger ? { logger } : {}),
  });
}
