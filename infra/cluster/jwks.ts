/**
 * The cluster's token issuer: a key pair, its public key served as a JWKS on loopback (the server's
 * default JWT authorizer fetches it), and tokens minted with Temporal's permission claims
 * (`<namespace>:<read|write|worker|admin>`). It can also mint the tokens a server must refuse.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TokenIssuer {
  /** Where the server reads the public key. */
  jwksUrl: string;
  /** A token with these permissions, e.g. `['default:write', 'default:worker']`. */
  token(permissions: string[], opts?: { expiresInSeconds?: number; signedBy?: 'issuer' | 'stranger' }): Promise<string>;
  close(): Promise<void>;
}

const KID = 'baton-cluster';

export async function startTokenIssuer(): Promise<TokenIssuer> {
  // jose is an ES module; a dynamic import is how CommonJS code loads it.
  const { exportJWK, generateKeyPair, SignJWT } = await import('jose');
  const own = await generateKeyPair('RS256');
  const stranger = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(own.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const body = JSON.stringify({ keys: [jwk] });
  const server: Server = createServer((req, res) => {
    res.writeHead(req.url === '/jwks.json' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(req.url === '/jwks.json' ? body : '{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    jwksUrl: `http://127.0.0.1:${port}/jwks.json`,
    async token(permissions, opts = {}) {
      const now = Math.floor(Date.now() / 1000);
      const key = opts.signedBy === 'stranger' ? stranger.privateKey : own.privateKey;
      return new SignJWT({ permissions })
        .setProtectedHeader({ alg: 'RS256', kid: KID })
        .setSubject('baton-cluster-test')
        .setIssuedAt(now - 60)
        .setExpirationTime(now + (opts.expiresInSeconds ?? 3600))
        .sign(key);
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
