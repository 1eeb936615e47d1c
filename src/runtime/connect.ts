/**
 * Connections to Temporal, made in one place for the worker, every CLI command, `baton ui`, `baton
 * webhook`: the same target (`resolveTemporalTarget`: environment, config, Temporal's profile), the
 * secrets read here and only here, and one line that says what to do when it fails: the address
 * tried and where it came from, which file or variable is wrong, or what the server refused.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Connection, type ConnectionOptions } from '@temporalio/client';
import type { NativeConnection, NativeConnectionOptions } from '@temporalio/worker';
import { ConfigError } from '../config/config-error';
import { isRefusal } from '../errors/as-baton-error';
import { TemporalRefusedError, TemporalUnavailableError } from '../errors/temporal-errors';
import { resolveTemporalTarget, type Material, type TemporalSection, type TemporalTarget } from '../config/temporal-target';

/** The address client commands use when neither TEMPORAL_ADDRESS nor the config names one: what `baton dev` serves. */
export const DEFAULT_ADDRESS = '127.0.0.1:7233';

/** How long a connection attempt may take before the server counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * The target: a bare address (a server Baton started itself, as `baton dev` does) is used as it is,
 * plain; a config section is resolved with the environment and Temporal's profile.
 */
function targetOf(given: TemporalSection | string | undefined): TemporalTarget {
  if (typeof given === 'string')
    return { address: given, namespace: 'default', from: { address: 'the server Baton started', namespace: 'the default' }, tls: false };
  return resolveTemporalTarget(given ?? {});
}

function read(m: Material, what: string): Buffer {
  if ('data' in m) return Buffer.from(m.data, 'utf8');
  try {
    return readFileSync(m.path);
  } catch (err) {
    throw new ConfigError(
      `cannot read the ${what} ${m.path} (${m.from}): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** The TLS options, with the certificate and key read and checked: a bad file is named, not a handshake error later. */
function tlsOf(target: TemporalTarget): NativeConnectionOptions['tls'] {
  if (!target.tls) return undefined;
  const { serverCa, clientCert, clientKey, serverName } = target.tls;
  const ca = serverCa ? read(serverCa, 'TLS server CA certificate') : undefined;
  if (ca && serverCa) certificate(ca, serverCa, 'TLS server CA certificate');
  let pair: { crt: Buffer; key: Buffer } | undefined;
  if (clientCert && clientKey) {
    const crt = read(clientCert, 'TLS client certificate');
    const key = read(clientKey, 'TLS client key');
    const cert = certificate(crt, clientCert, 'TLS client certificate');
    let privateKey;
    try {
      privateKey = createPrivateKey(key);
    } catch {
      throw new ConfigError(`the TLS client key (${clientKey.from}) is not a PEM private key`);
    }
    if (!cert.checkPrivateKey(privateKey)) {
      throw new ConfigError(
        `the TLS client key (${clientKey.from}) does not belong to the client certificate (${clientCert.from}): give the key the certificate was made for`,
      );
    }
    if (new Date(cert.validTo) < new Date()) {
      throw new ConfigError(`the TLS client certificate (${clientCert.from}) expired on ${new Date(cert.validTo).toISOString()}: renew it`);
    }
    pair = { crt, key };
  }
  return {
    ...(ca ? { serverRootCACertificate: ca } : {}),
    ...(pair ? { clientCertPair: pair } : {}),
    ...(serverName ? { serverNameOverride: serverName } : {}),
  };
}

function certificate(pem: Buffer, m: Material, what: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new ConfigError(`the ${what} (${m.from}) is not a PEM certificate`);
  }
}

function apiKeyOf(target: TemporalTarget): string | undefined {
  if (!target.apiKey) return undefined;
  return 'data' in target.apiKey ? target.apiKey.data : process.env[target.apiKey.env];
}

/** The connection options for `given`: address, TLS and API key, secrets read now. */
export function connectionOptions(given: TemporalSection | string | undefined): {
  address: string;
  tls?: NativeConnectionOptions['tls'];
  apiKey?: string;
  target: TemporalTarget;
} {
  const target = targetOf(given);
  const tls = tlsOf(target);
  const apiKey = apiKeyOf(target);
  return { address: target.address ?? DEFAULT_ADDRESS, ...(tls !== undefined ? { tls } : {}), ...(apiKey ? { apiKey } : {}), target };
}

function failed(target: TemporalTarget, address: string, err: unknown): Error {
  const said = (err as Error).message;
  // The worker's native connection reports the transport's debug text; its own words are inside it.
  const deepest = (() => {
    let e = err as { cause?: unknown; message?: string };
    while (e.cause && typeof e.cause === 'object') e = e.cause as typeof e;
    return e.message ?? said;
  })();
  const reason = (/message: "([^"]+)"/.exec(deepest)?.[1] ?? deepest).replace(/^\d+ [A-Z_]+: /, '');
  if (isRefusal(err) || /Unauthenticated|PermissionDenied|Request unauthorized/i.test(said)) {
    const credential = target.apiKey
      ? `the API key from ${target.apiKey.from}`
      : target.tls && target.tls.clientCert
        ? `the client certificate from ${target.tls.clientCert.from}`
        : 'no credential';
    return new TemporalRefusedError(
      `Temporal at ${address} refused the connection (${credential}): ${reason.replace(/\.$/, '')}; check the API key or token (TEMPORAL_API_KEY, temporal.apiKeyFromEnv) and its permissions for namespace ${target.namespace}`,
      { cause: err },
    );
  }
  const hint = target.tls
    ? `; TLS is on (${target.tls.from})${target.tls.clientCert ? '' : ' with no client certificate (a server that requires mTLS closes such connections: set TEMPORAL_TLS_CLIENT_CERT_PATH and _KEY_PATH, or temporal.tls.clientCertFile and clientKeyFile)'}: check the server CA, the client certificate and the server name`
    : '; start one with `npx baton dev`, or point TEMPORAL_ADDRESS (or temporal.address in the config) at a running server';
  return new TemporalUnavailableError(`cannot reach Temporal at ${address} (${target.from.address}): ${reason}${hint}`, { cause: err });
}

/** The largest response the client takes from the server: a page of history, a Query's answer. */
const MAX_RESPONSE_BYTES = 128 * 1024 * 1024;

/** A client connection; failures say what to do (TemporalUnavailableError, TemporalRefusedError, ConfigError). */
export async function connectTemporalClient(given: TemporalSection | string | undefined): Promise<Connection> {
  const { address, tls, apiKey, target } = connectionOptions(given);
  try {
    const options: ConnectionOptions = {
      address,
      connectTimeout: CONNECT_TIMEOUT_MS,
      ...(tls !== undefined ? { tls } : {}),
      ...(apiKey ? { apiKey } : {}),
      // The SDK means to raise gRPC's 4 MB limit on a response but names the option without its
      // `grpc.` prefix, which grpc-js ignores: a page of a large graph's history can pass 4 MB.
      channelArgs: { 'grpc.max_receive_message_length': MAX_RESPONSE_BYTES },
    };
    return await Connection.connect(options);
  } catch (err) {
    throw failed(target, address, err);
  }
}

/** A worker's connection; failures say what to do. */
export async function connectTemporalWorker(given: TemporalSection | string | undefined): Promise<NativeConnection> {
  const { address, tls, apiKey, target } = connectionOptions(given);
  // Loaded here, not above: client code (the `baton` entry) uses this module without the worker package.
  const { NativeConnection } = await import('@temporalio/worker');
  try {
    return await NativeConnection.connect({ address, ...(tls !== undefined ? { tls } : {}), ...(apiKey ? { apiKey } : {}) });
  } catch (err) {
    throw failed(target, address, err);
  }
}
