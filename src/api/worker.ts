/**
 * `baton/worker`: running Baton's workflow and activities, in your own worker (`withBaton`) or in a
 * worker of Baton's own (`createBatonWorker`, or `baton worker`).
 */
export { withBaton, batonWorkflowsPath, type WithBatonOptions } from '../embed/with-baton';
export { batonPlugin, BatonPlugin, type BatonPluginOptions } from '../embed/baton-plugin';
export { createBatonWorker, type BatonWorkerOptions } from '../runtime/worker';
export { closeMcpConnections } from '../../activities/mcp-connections';
export { ensureNamespace, missingSearchAttributes, registerSearchAttributes } from '../client/namespace-setup';
/** A worker's connection as Baton's own worker makes it: environment, config and Temporal's profile (TLS, API key). */
export { connectTemporalWorker } from '../runtime/connect';
export {
  ArtifactCorruptError,
  FsArtifactStore,
  type ArtifactRef,
  type ArtifactStore,
  type StagingFile,
  type StoredBytes,
} from '../artifacts/store';
export { S3ArtifactStore, ArtifactStoreMisconfiguredError, ArtifactStoreUnavailableError } from '../artifacts/s3-store';
export { PolicyRegistry, type AcceptancePolicy, type Candidate, type Decision, type DeclaredPolicy } from '../acceptance/policies';
export { createLogger, installTemporalRuntime } from '../runtime/logger';
/** Tracing (docs/observability.md): start it for this process, or give withBaton your own SDK's processor. */
export { startTracing, activeTracing, type Tracing } from '../telemetry/tracing';
export { STACK_TRACE_LIMIT_MODULES, TRACING_INTERCEPTOR_MODULES } from '../runtime/bundle-workflows';
