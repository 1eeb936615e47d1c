/**
 * What every client command needs: the config, the caller, and a connection to Temporal.
 */
import { BatonClient } from '../client/baton-client';
import { GraphClient } from '../client/graph-client';
import { loadConfig, type LoadedConfig } from '../config/load';
import { dataConverterOption } from '../codec/data-converter';
import { connectTemporalClient } from '../runtime/connect';
import { startTracing } from '../telemetry/tracing';

export async function connectClient(
  configPath?: string,
): Promise<{ loaded: LoadedConfig; baton: BatonClient; graphs: GraphClient; close(): Promise<void> }> {
  const loaded = loadConfig(configPath);
  const { temporal, caller } = loaded.config;
  // Keys are read before connecting: a missing key is a config problem, whatever the server's state.
  const opts = { namespace: temporal.namespace, taskQueue: temporal.taskQueue, caller, ...dataConverterOption(loaded.config) };
  // A command's starts and Updates become the first spans of the delegation's trace.
  const tracing = startTracing(loaded.config.telemetry, 'cli');
  const connection = await connectTemporalClient(temporal);
  return {
    loaded,
    baton: new BatonClient(connection, opts),
    graphs: new GraphClient(connection, opts),
    close: async () => {
      await connection.close();
      await tracing?.shutdown();
    },
  };
}
