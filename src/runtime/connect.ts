/**
 * Connections to Temporal, made in one place so that every process says the same thing when the
 * server cannot be reached: the address tried, where it came from, and how to start or point at one.
 */
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { TemporalUnavailableError } from '../errors/temporal-errors';

/** The address client commands use when neither TEMPORAL_ADDRESS nor the config names one: what `baton dev` serves. */
export const DEFAULT_ADDRESS = '127.0.0.1:7233';

/** How long a connection attempt may take before the server counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;

/** The address to use and where it came from, for messages. */
export function temporalAddress(configured: string | undefined): { address: string; from: string } {
  if (configured && process.env.TEMPORAL_ADDRESS === configured) return { address: configured, from: 'TEMPORAL_ADDRESS' };
  if (configured) return { address: configured, from: 'temporal.address in the config' };
  return { address: DEFAULT_ADDRESS, from: 'the default, where `baton dev` serves' };
}

function unreachable(address: string, from: string, err: unknown): TemporalUnavailableError {
  const said = (err as Error).message;
  // The worker's native connection reports the transport's debug text; its own words are inside it.
  const reason = /message: "([^"]+)"/.exec(said)?.[1] ?? said;
  return new TemporalUnavailableError(
    `cannot reach Temporal at ${address} (${from}): ${reason}; start one with \`npx baton dev\`, or point TEMPORAL_ADDRESS (or temporal.address in the config) at a running server`,
    { cause: err },
  );
}

/** A client connection; an unreachable server is a TemporalUnavailableError that says what to do. */
export async function connectTemporalClient(configured: string | undefined): Promise<Connection> {
  const { address, from } = temporalAddress(configured);
  try {
    return await Connection.connect({ address, connectTimeout: CONNECT_TIMEOUT_MS });
  } catch (err) {
    throw unreachable(address, from, err);
  }
}

/** A worker's connection; an unreachable server is a TemporalUnavailableError that says what to do. */
export async function connectTemporalWorker(configured: string | undefined): Promise<NativeConnection> {
  const { address, from } = temporalAddress(configured);
  try {
    return await NativeConnection.connect({ address });
  } catch (err) {
    throw unreachable(address, from, err);
  }
}
