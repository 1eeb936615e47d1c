/**
 * How a gRPC interface is reached under an agent's entry, with the same rules as guarded fetch: TLS
 * unless the entry allows plain http, every address the host resolves to checked (metadata and
 * link-local never, private and loopback only with allowPrivateNetwork), and the channel opened to
 * the checked address, so a second lookup cannot point it elsewhere. The server's certificate is
 * checked against the host's name, not the address.
 */
import * as grpc from '@grpc/grpc-js';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, isIPv6 } from 'node:net';
import { checkServerIdentity } from 'node:tls';
import type { AgentEntry } from '../config/schema';
import { FetchRefusedError, refusedResolution, type Lookup } from './guarded-fetch';
import { tlsOf } from './agent-fetch';

export interface GrpcChannel {
  /** `ip:port` (`[ip]:port` for IPv6): the checked address the channel connects to. */
  target: string;
  credentials: grpc.ChannelCredentials;
}

function resolveAll(lookup: Lookup, host: string): Promise<LookupAddress[]> {
  return new Promise((resolveAddresses, reject) =>
    lookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolveAddresses(addresses as LookupAddress[]))),
  );
}

/** The channel for gRPC interface `target` (`host:port`) of a card fetched from `cardUrl`. */
export async function grpcChannel(
  target: string,
  cardUrl: string,
  entry: Pick<AgentEntry, 'allowHttp' | 'allowPrivateNetwork'> & Partial<Pick<AgentEntry, 'tls'>>,
  lookup: Lookup = dnsLookup,
  /** Where the entry is configured, named in errors. */
  owner = 'the agent entry',
): Promise<GrpcChannel> {
  const url = new URL(`${new URL(cardUrl).protocol}//${target}`);
  const secure = url.protocol === 'https:';
  if (!secure && !entry.allowHttp)
    throw new FetchRefusedError('scheme', `${target}: only TLS is allowed (the agent entry does not set allowHttp)`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port || (secure ? '443' : '80');
  const addresses = isIP(host) ? [host] : (await resolveAll(lookup, host)).map((a) => a.address);
  if (!addresses.length) throw new Error(`${host} did not resolve`);
  const refused = refusedResolution(host, addresses, entry.allowPrivateNetwork);
  if (refused) throw new FetchRefusedError('address', `${target}: ${refused.message}`);
  const address = addresses[0] as string;
  const tls = tlsOf(entry, owner).tls;
  const credentials = secure
    ? grpc.credentials.createSsl(tls?.ca ?? null, tls?.key ?? null, tls?.cert ?? null, {
        checkServerIdentity: (_name, cert) => checkServerIdentity(host, cert),
      })
    : grpc.credentials.createInsecure();
  return { target: isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`, credentials };
}
