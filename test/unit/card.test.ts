import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentCard } from '@a2a-js/sdk';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { cardUrlOf, chooseInterface } from '../../src/a2a/card';

function fetched(interfaces: { url: string; protocolBinding: string; protocolVersion: string; tenant?: string }[]) {
  const card = AgentCard.fromJSON({
    name: 'x',
    description: 'x',
    version: '1',
    supportedInterfaces: interfaces,
    capabilities: {},
    skills: [],
  });
  return { url: 'https://agent.example/.well-known/agent-card.json', card, sha256: 'x' };
}

describe('card and interface choice', () => {
  it('appends the well-known path to a base URL', () => {
    assert.equal(cardUrlOf({ card: 'https://agent.example' }), 'https://agent.example/.well-known/agent-card.json');
    assert.equal(cardUrlOf({ card: 'https://agent.example/custom/card.json' }), 'https://agent.example/custom/card.json');
  });

  it('takes the first 1.0 interface, or the preferred binding', () => {
    const f = fetched([
      { url: 'https://agent.example/v03', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'https://agent.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://agent.example/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    assert.equal(chooseInterface('a', f, {}).url, 'https://agent.example/rpc');
    assert.equal(chooseInterface('a', f, { binding: 'HTTP+JSON' }).url, 'https://agent.example/rest');
  });

  it('falls back to a 0.3 interface when no 1.0 one is offered', () => {
    const f = fetched([{ url: 'https://agent.example/v03', protocolBinding: 'JSONRPC', protocolVersion: '0.3' }]);
    assert.deepEqual(chooseInterface('a', f, {}), {
      url: 'https://agent.example/v03',
      binding: 'JSONRPC',
      protocolVersion: '0.3',
      tenant: '',
    });
  });

  it('reads a 0.3-shaped card through the compatibility layer', () => {
    const card = new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }).normalizeAgentCard({
      name: 'old',
      description: 'old agent',
      url: 'https://agent.example/rpc',
      preferredTransport: 'JSONRPC',
      protocolVersion: '0.3.0',
      version: '1',
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    });
    const chosen = chooseInterface('a', { url: 'https://agent.example/.well-known/agent-card.json', card }, {});
    assert.match(chosen.protocolVersion, /^0\.3(\.0)?$/);
    assert.equal(chosen.url, 'https://agent.example/rpc');
  });

  it('accepts an interface on an allowlisted origin', () => {
    const f = fetched([{ url: 'https://api.agent.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    assert.equal(chooseInterface('a', f, { allowedOrigins: ['https://api.agent.example'] }).url, 'https://api.agent.example/rpc');
  });

  it("refuses interfaces off the card's origin", () => {
    const f = fetched([{ url: 'https://evil.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    assert.throws(
      () => chooseInterface('a', f, {}),
      (err: Error & { type?: string }) => err.type === 'TrustRefused' && /evil\.example/.test(err.message),
    );
  });

  it("takes a gRPC interface on the card's origin (host:port, with the card's scheme), and refuses one off it", () => {
    const on = fetched([{ url: 'agent.example:443', protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: 'qa' }]);
    assert.deepEqual(chooseInterface('a', on, {}), { url: 'agent.example:443', binding: 'GRPC', protocolVersion: '1.0', tenant: 'qa' });
    const off = fetched([{ url: 'agent.example:50051', protocolBinding: 'GRPC', protocolVersion: '1.0' }]);
    assert.throws(
      () => chooseInterface('a', off, {}),
      (err: Error & { type?: string }) => err.type === 'TrustRefused' && /agent\.example:50051/.test(err.message),
    );
    assert.equal(chooseInterface('a', off, { allowedOrigins: ['https://agent.example:50051'] }).binding, 'GRPC');
    // Not a host:port target: never treated as on any origin.
    const odd = fetched([{ url: 'dns:///agent.example', protocolBinding: 'GRPC', protocolVersion: '1.0' }]);
    assert.throws(
      () => chooseInterface('a', odd, { allowedOrigins: ['https://agent.example'] }),
      (err: Error & { type?: string }) => err.type === 'TrustRefused',
    );
  });

  it('says so when no supported interface exists', () => {
    const f = fetched([{ url: 'https://agent.example/soap', protocolBinding: 'SOAP', protocolVersion: '1.0' }]);
    assert.throws(
      () => chooseInterface('a', f, {}),
      (err: Error & { type?: string }) => err.type === 'AgentRefused',
    );
  });
});
