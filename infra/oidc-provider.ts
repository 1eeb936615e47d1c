/**
 * A real OpenID provider on loopback for the tests and the benchmark: `oidc-provider` (certified
 * OpenID Connect and OAuth 2.0 server, a dev dependency), issuing JWT access tokens by client
 * credentials and ID tokens by the authorization code flow with PKCE. Its clients stand for the
 * parties of the identity tests: Baton calling an agent (secret, private_key_jwt, revoked), partners
 * calling Baton (all scopes, read only, another tenant) and the web app.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from '../src/runtime/listen';

/** Resource indicators (RFC 8707) the provider issues access tokens for. */
export const AGENT_RESOURCE = 'urn:baton-test:agent';
export const BATON_RESOURCE = 'urn:baton-test:baton';
export const BATON_SCOPES = 'baton:read baton:delegate baton:answer baton:cancel';

export interface OidcProviderOptions {
  /** Lifetime of every access token, in seconds. Default 300. */
  accessTokenTtlSeconds?: number;
  /** The web app's callback URL(s), for client `baton-web`. Default none. */
  webRedirectUris?: string[];
  /** The public JWK of the key Baton signs its `private_key_jwt` assertions with (client `baton-agent-pkjwt`). */
  assertionKey?: Record<string, unknown>;
}

export interface RunningOidcProvider {
  issuer: string;
  tokenUrl: string;
  jwksUri: string;
  /** Client secrets, by client id. */
  secrets: Record<string, string>;
  /** Access tokens issued, in order: [client id, jti]. */
  issued: { clientId: string; at: number }[];
  /** Makes the token endpoint answer 503 (true) or work again (false): the provider down. */
  setDown(down: boolean): void;
  /** Resolves once the token endpoint has been asked `n` times while down. */
  downHits(n: number): Promise<void>;
  /**
   * Signs `claims` with the provider's own key and key id: tokens it would not issue (expired, for
   * another audience), for the tests of what a verifier refuses.
   */
  sign(claims: Record<string, unknown>): Promise<string>;
  /** The provider's public key as PEM: what an HMAC-confusion attack uses as the secret. */
  publicKeyPem: string;
  close(): Promise<void>;
}

export async function startOidcProvider(opts: OidcProviderOptions = {}): Promise<RunningOidcProvider> {
  // Both are ES modules: a dynamic import is how CommonJS code loads them.
  const { default: Provider } = await import('oidc-provider');
  const { exportJWK, exportSPKI, generateKeyPair, SignJWT } = await import('jose');
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'provider-1', alg: 'RS256', use: 'sig' };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ttl = opts.accessTokenTtlSeconds ?? 300;
  const secrets = {
    'baton-agent': 'agent-client-secret-0123456789',
    'baton-agent-revoked': 'revoked-client-secret-0123456789',
    partner: 'partner-client-secret-0123456789',
    'partner-readonly': 'readonly-client-secret-0123456789',
    'partner-globex': 'globex-client-secret-0123456789',
    'baton-web': 'web-client-secret-0123456789',
  };
  const service = (id: keyof typeof secrets, scope: string, extra: Record<string, unknown> = {}) => ({
    client_id: id,
    client_secret: secrets[id],
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    scope,
    ...extra,
  });
  const tenants: Record<string, string> = { partner: 'acme', 'partner-readonly': 'acme', 'partner-globex': 'globex' };
  const issued: RunningOidcProvider['issued'] = [];
  const provider = new Provider(issuer, {
    jwks: { keys: [signingKey as never] },
    scopes: ['openid', 'profile', 'agent:call', ...BATON_SCOPES.split(' ')],
    cookies: { keys: ['test-cookie-key-0123456789abcdef'] },
    clients: [
      service('baton-agent', 'agent:call'),
      // A client the provider no longer honours: its secret expired (how the provider says "revoked").
      service('baton-agent-revoked', 'agent:call', { client_secret_expires_at: 1 }),
      ...(opts.assertionKey
        ? [
            {
              client_id: 'baton-agent-pkjwt',
              grant_types: ['client_credentials'],
              redirect_uris: [],
              response_types: [],
              scope: 'agent:call',
              token_endpoint_auth_method: 'private_key_jwt',
              token_endpoint_auth_signing_alg: 'RS256',
              jwks: { keys: [opts.assertionKey] },
            },
          ]
        : []),
      service('partner', BATON_SCOPES),
      service('partner-readonly', 'baton:read'),
      service('partner-globex', BATON_SCOPES),
      {
        client_id: 'baton-web',
        client_secret: secrets['baton-web'],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: opts.webRedirectUris ?? ['http://127.0.0.1/never'],
      },
    ] as never,
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx: unknown, client: { clientId: string }) =>
          client.clientId.startsWith('partner') ? BATON_RESOURCE : AGENT_RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: resource === BATON_RESOURCE ? BATON_SCOPES : 'agent:call',
          audience: resource,
          accessTokenTTL: ttl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    extraTokenClaims: (_ctx: unknown, token: { clientId?: string }) => {
      if (token.clientId) issued.push({ clientId: token.clientId, at: Date.now() });
      const tenant = token.clientId ? tenants[token.clientId] : undefined;
      return tenant ? { tenant } : undefined;
    },
    claims: { openid: ['sub', 'tenant'], profile: ['name'] },
    conformIdTokenClaims: false,
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id, tenant: 'acme', name: id }) }),
    pkce: { required: () => true },
    ttl: { ClientCredentials: ttl, AccessToken: ttl, IdToken: 3600, Session: 3600, Grant: 3600, Interaction: 600, AuthorizationCode: 60 },
  } as never);
  // The provider on loopback plain http: it must not think it is behind a TLS proxy.
  const callback = provider.callback();
  let down = false;
  let hits = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  server.on('request', (req, res) => {
    if (down && req.url?.startsWith('/token')) {
      hits++;
      for (const w of waiters.filter((x) => hits >= x.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      res.writeHead(503, { 'content-type': 'text/html' }).end('<html><body>maintenance</body></html>');
      return;
    }
    callback(req, res);
  });
  return {
    issuer,
    tokenUrl: `${issuer}/token`,
    jwksUri: `${issuer}/jwks`,
    secrets,
    issued,
    setDown: (d) => {
      down = d;
      hits = 0;
    },
    sign: (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'provider-1', typ: 'at+jwt' }).sign(privateKey),
    publicKeyPem: await exportSPKI(publicKey),
    downHits: (n) => (hits >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
    close: () => closeServer(server),
  };
}
