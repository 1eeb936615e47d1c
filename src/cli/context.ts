/**
 * What every client command needs: the config, the caller, and a connection to Temporal.
 */
import { Connection } from '@temporalio/client';
import { BatonClient } from '../client/baton-client';
import { GraphClient } from '../client/graph-client';
import { loadConfig, type LoadedConfig } from '../config/load';

/** The address client commands use: TEMPORAL_ADDRESS, the config's, or the one `baton dev` serves. */
export const DEFAULT_ADDRESS = '127.0.0.1:7233';

export async function connectClient(
  configPath?: string,
): Promise<{ loaded: LoadedConfig; baton: BatonClient; graphs: GraphClient; close(): Promise<void> }> {
  const loaded = loadConfig(configPath);
  const { temporal, caller } = loaded.config;
  const address = temporal.address ?? DEFAULT_ADDRESS;
  let connection: Connection;
  try {
    connection = await Connection.connect({ address, connectTimeout: 5_000 });
  } catch (err) {
    throw new Error(
      `cannot reach Temporal at ${address} (${(err as Error).message}). Start the stack with \`npx baton dev\`, or set TEMPORAL_ADDRESS.`,
    );
  }
  const opts = { namespace: temporal.namespace, taskQueue: temporal.taskQueue, caller };
  return { loaded, baton: new BatonClient(connection, opts), graphs: new GraphClient(connection, opts), close: () => connection.close() };
}
