/**
 * An issuer's published keys, as Baton reads them for callers' JWTs: fetched once, fetched again when
 * a token names a key id not seen yet (a rotation), and not fetched again for every made-up key id.
 * The keys are served over real HTTP on loopback, as an identity provider publishes them.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { IssuerTokens } from '../../src/auth/issuer-tokens';
import { IssuerSchema } from '../../src/config/identity-schema';

describe("an issuer's keys", () => {
  type Key = { kid: string; privateKey: import('node:crypto').webcrypto.CryptoKey; jwk: Record<string, unknown> };
  let published: Key[] = [];
  let fetches = 0;
  let server: Server;
  let jwksUri = '';
  const issuer = 'https://login.example';

  const makeKey = async (kid: string): Promise<Key> => {
    const { exportJWK, generateKeyPair } = await import('jose');
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
  };
  const tokenOf = async (key: Key, kid = key.kid): Promise<string> => {
    const { SignJWT } = await import('jose');
    return new SignJWT({ tenant: 'acme', scope: 'baton:read' })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setIssuer(issuer)
      .setAudience('baton')
      .setSubject('svc-1')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(key.privateKey);
  };
  const config = () => IssuerSchema.parse({ issuer, audience: 'baton', tenantClaim: 'tenant', jwksUri, algorithms: ['ES256'] });

  before(async () => {
    server = createServer((_req, res) => {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published.map((k) => k.jwk) }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  });
  after(() => server.close());

  it('follows a rotation: the new key is fetched when a token names it, the retired one is refused', async () => {
    const first = await makeKey('k1');
    const second = await makeKey('k2');
    published = [first];
    fetches = 0;
    const tokens = new IssuerTokens([config()], 0);
    assert.deepEqual((await tokens.principalFor(await tokenOf(first)))?.caller, { tenant: 'acme', user: 'svc-1' });
    assert.equal(fetches, 1);
    assert.ok(await tokens.principalFor(await tokenOf(first)), 'a known key is not fetched again');
    assert.equal(fetches, 1);
    published = [second];
    assert.deepEqual((await tokens.principalFor(await tokenOf(second)))?.caller, { tenant: 'acme', user: 'svc-1' }, 'the new key is taken');
    assert.equal(fetches, 2);
    assert.equal(await tokens.principalFor(await tokenOf(first)), undefined, 'the retired key is refused');
  });

  it('does not fetch the keys again for every made-up key id', async () => {
    const key = await makeKey('k3');
    published = [key];
    fetches = 0;
    const why: string[] = [];
    const tokens = new IssuerTokens([config()]);
    assert.ok(await tokens.principalFor(await tokenOf(key)));
    for (let i = 0; i < 50; i++) assert.equal(await tokens.principalFor(await tokenOf(key, `made-up-${i}`), (w) => why.push(w)), undefined);
    assert.equal(fetches, 1, 'within the cooldown, no unknown key id fetches the keys');
    assert.equal(why.length, 50);
    assert.match(why[0] ?? '', /ERR_JWKS_NO_MATCHING_KEY|no applicable key|JWKSNoMatchingKey|cooldown/i);
  });
});
