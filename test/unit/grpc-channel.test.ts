/**
 * The gRPC channel to an agent: TLS unless the entry allows http, every resolved address checked, the
 * channel opened to the checked address. Lookups are given, no network.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, it } from 'node:test';
import { grpcChannel } from '../../src/a2a/grpc-channel';
import { FetchRefusedError, type Lookup } from '../../src/a2a/guarded-fetch';

const resolvesTo = (...addresses: string[]): Lookup =>
  ((_host: string, _opts: unknown, cb: (err: Error | null, a: LookupAddress[]) => void) =>
    cb(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    )) as unknown as Lookup;

const strict = { allowHttp: false, allowPrivateNetwork: false };

describe('gRPC channel', () => {
  it('connects to the checked address of the host, over TLS for an https card', async () => {
    const channel = await grpcChannel(
      'agent.example:443',
      'https://agent.example/.well-known/agent-card.json',
      strict,
      resolvesTo('93.184.216.34'),
    );
    assert.equal(channel.target, '93.184.216.34:443');
    assert.equal(channel.credentials._isSecure(), true);
  });

  it('refuses a host with any address never allowed, or private without allowPrivateNetwork', async () => {
    await assert.rejects(
      grpcChannel('agent.example:443', 'https://agent.example/', strict, resolvesTo('93.184.216.34', '169.254.169.254')),
      (e) => e instanceof FetchRefusedError && e.refusal === 'address' && /169\.254\.169\.254/.test(e.message),
    );
    await assert.rejects(
      grpcChannel('10.0.0.7:50051', 'https://agent.example/', strict, resolvesTo()),
      (e) => e instanceof FetchRefusedError && /allowPrivateNetwork/.test(e.message),
    );
    const allowed = await grpcChannel('10.0.0.7:50051', 'https://agent.example/', { ...strict, allowPrivateNetwork: true }, resolvesTo());
    assert.equal(allowed.target, '10.0.0.7:50051');
  });

  it('is plaintext only for an http card whose entry allows http', async () => {
    await assert.rejects(
      grpcChannel('127.0.0.1:50051', 'http://127.0.0.1:8080/', { allowHttp: false, allowPrivateNetwork: true }),
      (e) => e instanceof FetchRefusedError && e.refusal === 'scheme',
    );
    const plain = await grpcChannel('127.0.0.1:50051', 'http://127.0.0.1:8080/', { allowHttp: true, allowPrivateNetwork: true });
    assert.equal(plain.credentials._isSecure(), false);
  });
});
