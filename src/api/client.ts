/**
 * `baton`: the client side, for applications that start and steer delegations from outside a
 * workflow. Loads no worker, demo or test code.
 */
export {
  BatonClient,
  DelegationNotFoundError,
  InvalidRequestError,
  RequestRefusedError,
  type StartDelegation,
} from '../client/baton-client';
export type { BatonClientOptions } from '../client/client-options';
export { ConfigError, loadConfig, parseConfig, type LoadedConfig } from '../config/load';
/** A client connection as the CLI makes it: environment, then `temporal` in the config, then Temporal's profile (TLS, API key). */
export { connectTemporalClient } from '../runtime/connect';
export { batonDataConverter } from '../codec/data-converter';
export { EncryptionCodec, PayloadDecryptError, PayloadKeyUnknownError } from '../codec/encryption-codec';
export { resolveTemporalTarget, type TemporalTarget } from '../config/temporal-target';
export type { BatonConfig, AgentEntry } from '../config/schema';
export { resultOf, type DelegationResult } from '../shared/delegation-result';
export type {
  Answer,
  ArtifactRecord,
  Authorize,
  Caller,
  CancelRequest,
  Contract,
  DelegationInput,
  DelegationRecord,
  DelegationStatus,
  Outcome,
  OutcomeKind,
  PendingRequest,
  RefusedSignal,
  RequestNotice,
  Review,
} from '../shared/delegation-types';
export type { Part } from '../shared/a2a-types';
