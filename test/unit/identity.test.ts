/**
 * Identity decisions without a server: which card requirements an agent entry can meet, where a card's
 * token endpoint may come from, what each request needs on every surface, what a verified token's
 * claims and scopes make of a caller, and the configuration's refusals.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cardTokenSources, onOrigins, refuseCardSecurity, schemeOf } from '../../src/a2a/card-security';
import { grantedBy, looksLikeJwt, principalOf } from '../../src/auth/issuer-tokens';
import {
  apiPermission,
  EVERY_PERMISSION,
  grpcPermission,
  jsonRpcPermission,
  mcpPermission,
  refusePermission,
  restPermission,
} from '../../src/auth/permissions';
import { AgentEntrySchema, ConfigSchema } from '../../src/config/schema';
import { IssuerSchema } from '../../src/config/identity-schema';

const entry = (extra: Record<string, unknown> = {}) => AgentEntrySchema.parse({ card: 'https://agent.example/', ...extra });
const oauth2 = { tokenUrl: 'https://idp.example/token', clientId: 'baton', clientSecret: { fromEnv: 'S' }, scopes: ['agent:call'] };
const card = (schemes: Record<string, unknown>, requirements: Record<string, string[]>[]) => ({
  securitySchemes: schemes,
  securityRequirements: requirements.map((r) => ({ schemes: Object.fromEntries(Object.entries(r).map(([k, v]) => [k, { list: v }])) })),
});

describe('card security requirements against an agent entry', () => {
  const bearer = { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } };
  const oauth = { oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://idp.example/token' } } } } };
  const key = { key: { apiKeySecurityScheme: { location: 'query', name: 'key' } } };

  it('a card that requires nothing needs nothing', () => {
    assert.equal(refuseCardSecurity('a', entry(), {}), undefined);
    assert.equal(refuseCardSecurity('a', entry(), card(bearer, [])), undefined);
  });

  it('a bearer scheme is met by oauth2 or by an Authorization header with the Bearer scheme', () => {
    assert.equal(refuseCardSecurity('a', entry({ oauth2 }), card(bearer, [{ bearer: [] }])), undefined);
    assert.equal(refuseCardSecurity('a', entry({ auth: { scheme: 'Bearer', fromEnv: 'T' } }), card(bearer, [{ bearer: [] }])), undefined);
    assert.equal(
      refuseCardSecurity('a', entry(), card(bearer, [{ bearer: [] }])),
      'agent a: its card requires authentication this entry cannot present: scheme "bearer" (HTTP Bearer): set agents.a.oauth2 (client credentials) or agents.a.auth { scheme: Bearer }',
    );
  });

  it('OAuth scopes the entry does not ask for are named', () => {
    assert.match(
      refuseCardSecurity('a', entry({ oauth2 }), card(oauth, [{ oauth: ['agent:call', 'agent:admin'] }])) ?? '',
      /set agents\.a\.oauth2\.scopes with agent:admin$/,
    );
    assert.equal(refuseCardSecurity('a', entry({ oauth2 }), card(oauth, [{ oauth: ['agent:call'] }])), undefined);
  });

  it('an API key must be where the card wants it', () => {
    const header = entry({ apiKey: { in: 'header', name: 'key', fromEnv: 'K' } });
    assert.match(
      refuseCardSecurity('a', header, card(key, [{ key: [] }])) ?? '',
      /scheme "key" \(API key in query "key"\): set agents\.a\.apiKey \{ in: query, name: key \}/,
    );
    assert.equal(
      refuseCardSecurity('a', entry({ apiKey: { in: 'query', name: 'key', fromEnv: 'K' } }), card(key, [{ key: [] }])),
      undefined,
    );
  });

  it('any one alternative is enough; all schemes of one alternative are needed; every unmet one is named', () => {
    const both = card({ ...bearer, ...key }, [{ bearer: [], key: [] }, { key: [] }]);
    assert.match(refuseCardSecurity('a', entry({ oauth2 }), both) ?? '', /set agents\.a\.apiKey .*; or scheme "key"/);
    assert.equal(refuseCardSecurity('a', entry({ oauth2, apiKey: { in: 'query', name: 'key', fromEnv: 'K' } }), both), undefined);
  });

  it("reads the official JS server's internal form and 0.3 cards", () => {
    assert.deepEqual(schemeOf({ scheme: { $case: 'mtlsSecurityScheme', value: {} } }), { kind: 'mtls' });
    assert.deepEqual(
      schemeOf({
        scheme: {
          $case: 'oauth2SecurityScheme',
          value: { flows: { flow: { $case: 'clientCredentials', value: { tokenUrl: 'https://i/t' } } } },
        },
      }),
      { kind: 'oauth2', tokenUrl: 'https://i/t' },
    );
    assert.deepEqual(schemeOf({ type: 'apiKey', in: 'header', name: 'X-Key' }), { kind: 'apiKey', location: 'header', name: 'X-Key' });
    const legacy = { securitySchemes: { k: { type: 'apiKey', in: 'header', name: 'X-Key' } }, security: [{ k: [] }] };
    assert.equal(refuseCardSecurity('a', entry({ auth: { header: 'X-Key', fromEnv: 'K' } }), legacy), undefined);
    assert.equal(
      refuseCardSecurity('a', entry({ tls: { certFile: 'c', keyFile: 'k' } }), card({ m: { mtlsSecurityScheme: {} } }, [{ m: [] }])),
      undefined,
    );
  });

  it("finds the card's token endpoints, and takes one only on a listed origin", () => {
    const c = {
      securitySchemes: {
        ...oauth,
        o: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://login.example/.well-known/openid-configuration' } },
      },
    };
    assert.deepEqual(cardTokenSources(c), {
      tokenUrls: ['https://idp.example/token'],
      discoveryUrls: ['https://login.example/.well-known/openid-configuration'],
    });
    assert.equal(onOrigins('https://idp.example/token', ['https://idp.example']), true);
    assert.equal(onOrigins('https://idp.example.evil/token', ['https://idp.example']), false);
    assert.equal(onOrigins('http://idp.example/token', ['https://idp.example']), false);
    assert.equal(onOrigins('not a url', ['https://idp.example']), false);
  });
});

describe('what each request needs', () => {
  it('the HTTP API, by method and path', () => {
    assert.equal(apiPermission('GET', '/delegations/x'), 'read');
    assert.equal(apiPermission('POST', '/delegations'), 'delegate');
    assert.equal(apiPermission('POST', '/graphs'), 'delegate');
    assert.equal(apiPermission('POST', '/graphs/g/nodes'), 'delegate');
    assert.equal(apiPermission('POST', '/delegations/x/answer'), 'answer');
    assert.equal(apiPermission('POST', '/delegations/x/authorize'), 'answer');
    assert.equal(apiPermission('POST', '/delegations/x/review'), 'answer');
    assert.equal(apiPermission('POST', '/graphs/g/cancel'), 'cancel');
    assert.equal(apiPermission('POST', '/something-new'), 'admin', 'an unknown change needs the most');
  });

  it('A2A, the same on every binding: a send that names a task answers it, one that does not delegates', () => {
    const rpc = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 1, method, params });
    assert.equal(jsonRpcPermission(rpc('SendMessage', { message: { parts: [] } })), 'delegate');
    assert.equal(jsonRpcPermission(rpc('SendStreamingMessage', { message: { taskId: 't' } })), 'answer');
    assert.equal(jsonRpcPermission(rpc('CancelTask', { id: 't' })), 'cancel');
    assert.equal(jsonRpcPermission(rpc('GetTask', { id: 't' })), 'read');
    assert.equal(jsonRpcPermission(rpc('CreateTaskPushNotificationConfig', {})), 'delegate');
    assert.equal(jsonRpcPermission('not an object'), 'read');
    assert.equal(restPermission('POST', '/message:send', { message: {} }), 'delegate');
    assert.equal(restPermission('POST', '/message:stream', { message: { taskId: 't' } }), 'answer');
    assert.equal(restPermission('POST', '/tasks/t:cancel', {}), 'cancel');
    assert.equal(restPermission('GET', '/tasks/t', undefined), 'read');
    assert.equal(grpcPermission('/lf.a2a.v1.A2AService/SendMessage', { message: { taskId: '' } }), 'delegate');
    assert.equal(grpcPermission('/lf.a2a.v1.A2AService/CancelTask', {}), 'cancel');
  });

  it('MCP: tools that act need their permission, the rest reads', () => {
    const call = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name } });
    assert.equal(mcpPermission(call('delegate')), 'delegate');
    assert.equal(mcpPermission(call('answer')), 'answer');
    assert.equal(mcpPermission(call('cancel_delegation')), 'cancel');
    assert.equal(mcpPermission(call('show_delegation')), 'read');
    assert.equal(mcpPermission({ method: 'initialize' }), 'read');
  });

  it('admin grants everything; a missing permission is named', () => {
    assert.equal(refusePermission(new Set(['admin']), 'cancel'), undefined);
    assert.equal(refusePermission(EVERY_PERMISSION, 'delegate'), undefined);
    assert.equal(refusePermission(new Set(['read']), 'delegate'), 'this caller may not delegate here: its token does not grant "delegate"');
  });
});

describe("a verified token's claims", () => {
  const scopes = IssuerSchema.parse({ issuer: 'https://idp.example', audience: 'baton', tenant: 'acme' }).scopes;

  it('scopes grant permissions, in `scope` or `scp`', () => {
    assert.deepEqual([...grantedBy({ scope: 'baton:read openid baton:cancel' }, scopes)], ['read', 'cancel']);
    assert.deepEqual([...grantedBy({ scp: ['baton:delegate'] }, scopes)], ['delegate']);
    assert.deepEqual([...grantedBy({}, scopes)], []);
  });

  it('claims name the caller; a tenant that is not a tenant name is no caller', () => {
    const may = new Set(['read'] as const);
    assert.deepEqual(principalOf({ sub: 'svc-1', tid: 'acme' }, { tenantClaim: 'tid', userClaim: 'sub' }, may, 'jwt')?.caller, {
      tenant: 'acme',
      user: 'svc-1',
    });
    assert.deepEqual(principalOf({ org: { id: 'acme' }, sub: 'u' }, { tenantClaim: 'org.id', userClaim: 'sub' }, may, 'jwt')?.caller, {
      tenant: 'acme',
      user: 'u',
    });
    assert.equal(principalOf({ sub: 'u', tid: 'acme:evil' }, { tenantClaim: 'tid', userClaim: 'sub' }, may, 'jwt'), undefined);
    assert.equal(principalOf({ tid: 'acme' }, { tenantClaim: 'tid', userClaim: 'sub' }, may, 'jwt'), undefined);
    assert.equal(principalOf({ sub: 'u' }, { tenant: 'fixed', userClaim: 'sub' }, may, 'jwt')?.caller.tenant, 'fixed');
  });

  it('only a compact JWT of bounded size is read at all', () => {
    assert.equal(looksLikeJwt('a.b.c'), true);
    assert.equal(looksLikeJwt('a.b.'), false, 'unsigned');
    assert.equal(looksLikeJwt(`a.${'b'.repeat(9000)}.c`), false);
  });
});

describe('identity configuration', () => {
  const problem = (f: () => unknown): string => {
    try {
      f();
    } catch (err) {
      return (err as Error).message;
    }
    return '';
  };

  it('refuses an OAuth entry without exactly one client credential, or without a token endpoint', () => {
    assert.match(
      problem(() => entry({ oauth2: { ...oauth2, clientSecret: undefined } })),
      /set exactly one of clientSecret or privateKeyJwt/,
    );
    assert.match(
      problem(() => entry({ oauth2: { ...oauth2, tokenUrl: undefined } })),
      /set tokenUrl, or cardTokenOrigins/,
    );
    assert.match(
      problem(() => entry({ oauth2, auth: { scheme: 'Bearer', fromEnv: 'T' } })),
      /oauth2 sends Authorization: Bearer itself/,
    );
    assert.match(
      problem(() => entry({ apiKey: { name: 'Host', fromEnv: 'K' } })),
      /names a header Baton sets itself/,
    );
  });

  it('refuses an issuer over http unless allowed, a tenant given twice, and symmetric algorithms', () => {
    assert.match(
      problem(() => IssuerSchema.parse({ issuer: 'http://idp.example', audience: 'b', tenant: 'acme' })),
      /an http issuer needs allowHttp/,
    );
    assert.match(
      problem(() => IssuerSchema.parse({ issuer: 'https://idp.example', audience: 'b', tenant: 'acme', tenantClaim: 'tid' })),
      /exactly one of tenant or tenantClaim/,
    );
    assert.match(
      problem(() => IssuerSchema.parse({ issuer: 'https://idp.example', audience: 'b', tenant: 'acme', algorithms: ['HS256'] })),
      /Invalid option/,
    );
    assert.match(
      problem(() => IssuerSchema.parse({ issuer: 'https://idp.example', audience: 'b', tenant: 'acme', algorithms: ['none'] })),
      /Invalid option/,
    );
  });

  it('defaults keep today: no issuers, no sign-in', () => {
    const config = ConfigSchema.parse({});
    assert.deepEqual(config.api.issuers, []);
    assert.equal(config.api.signIn, undefined);
  });
});
