/**
 * The clients a server process acts through, from its config: delegations, graphs, and the artifact
 * store that holds what they keep by digest.
 */
import type { ConnectionLike } from '@temporalio/client';
import type { Logger } from 'pino';
import { configuredStore } from '../artifacts/configured-store';
import type { ArtifactStore } from '../artifacts/store';
import { dataConverterOption } from '../codec/data-converter';
import type { BatonConfig } from '../config/schema';
import { BatonClient } from './baton-client';
import { GraphClient } from './graph-client';

export function configuredClients(
  connection: ConnectionLike,
  config: BatonConfig,
  logger: Logger,
): { baton: BatonClient; graphs: GraphClient; artifacts?: ArtifactStore } {
  const opts = {
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    caller: config.caller,
    ...dataConverterOption(config),
  };
  const artifacts = configuredStore(config, logger.child({ component: 'artifact-store' }));
  return { baton: new BatonClient(connection, opts), graphs: new GraphClient(connection, opts), ...(artifacts ? { artifacts } : {}) };
}
