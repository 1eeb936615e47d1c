/**
 * Callers with tokens from their own identity provider, on every surface of `baton ui` (the HTTP
 * API, the served agent over JSON-RPC, HTTP+JSON and gRPC, `/mcp`): a real OpenID provider on
 * loopback issues JWT access tokens by client credentials; scopes decide what each may do; every bad
 * token is refused the same way everywhere. Webhooks to callers carry a JWT verifiable at Baton's
 * JWKS. Operators sign in to the web app with OpenID Connect in headless Chromium.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, createHmac, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { SendMessageRequest, Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '../../src/a2a/grpc-transport';
import { basicAuthorization } from '../../src/auth/basic-auth';
import { ConfigSchema } from '../../src/config/schema';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { startUi, type RunningUi } from '../../src/http/start-ui';
import { freePort } from '../../src/runtime/free-port';
import { projectRoot } from '../../src/runtime/project-root';
import { BATON_RESOURCE, BATON_SCOPES, startOidcProvider, type RunningOidcProvider } from '../../infra/oidc-provider';
import { launchBrowser } from '../helpers/browser';
import { SKILLS, testPush } from '../helpers/served';
import { batonFor, loopbackAgent, testServer, withWorker, type TestWorkerContext } from '../helpers/temporal';
import type { AgentEntry } from '../../src/config/schema';
import { Webhook } from '../helpers/webhook';

const execFileAsync = promisify(execFile);
const STATIC_ENV = 'BATON_TEST_IDENTITY_STATIC_TOKEN';
const STATIC = 'identity-static-token-0123456789';
const WEB_SECRET_ENV = 'BATON_TEST_WEB_CLIENT_SECRET';
const PUSH_KEY_ENV = 'BATON_TEST_IDENTITY_PUSH_KEY';
const FULL = 'Verify inspection-92 against order A1042, product SN-4471';

const SIGNING = (() => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyFile = join(mkdtempSync(join(tmpdir(), 'baton-identity-key-')), 'key.pem');
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  return { keyFile, kid: 'baton-identity-test' };
})();

describe('callers with tokens from their own identity provider', () => {
  let provider: RunningOidcProvider;
  let agent: RunningAgent;
  let apiPort: number;
  before(async () => {
    apiPort = await freePort();
    provider = await startOidcProvider({ webRedirectUris: [`http://127.0.0.1:${apiPort}/auth/oidc/callback`] });
    agent = await startAgentServer(supplierQa({ workMs: 30 }));
    process.env[STATIC_ENV] = STATIC;
    process.env[WEB_SECRET_ENV] = provider.secrets['baton-web'];
    process.env[PUSH_KEY_ENV] = Buffer.alloc(32, 7).toString('base64');
  });
  after(async () => {
    await agent.close();
    await provider.close();
  });

  /** A token of `client` by client credentials, with `scope` (default: all it has). */
  const tokenOf = async (client: string, scope?: string): Promise<string> => {
    const res = await fetch(provider.tokenUrl, {
      method: 'POST',
      headers: {
        authorization: basicAuthorization(client, provider.secrets[client] as string),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: BATON_RESOURCE, scope: scope ?? BATON_SCOPES }),
    });
    const body = (await res.json()) as { access_token?: string };
    assert.ok(body.access_token, `the provider gave ${client} a token: ${JSON.stringify(body)}`);
    return body.access_token;
  };

  /** `baton ui` itself (startUi) on the test worker's queue: static callers, the provider's JWTs, OIDC sign-in, a served agent over gRPC too. */
  const withUi = async (
    fn: (ui: RunningUi, ctx: TestWorkerContext) => Promise<void>,
    more: Record<string, AgentEntry> = {},
    grpcPort = 0,
  ) => {
    const agents = { 'supplier-qa': loopbackAgent(agent.url), ...more };
    const { address, namespace } = await testServer();
    const serve = {
      pollMs: 50,
      grpc: { listen: { host: '127.0.0.1', port: grpcPort } },
      signing: { privateKeyFile: SIGNING.keyFile, kid: SIGNING.kid },
      push: testPush(PUSH_KEY_ENV),
      services: { 'supplier-check': { description: 'Checked supplier verification', skills: SKILLS, delegate: { agent: 'supplier-qa' } } },
    };
    await withWorker(
      agents,
      async (ctx) => {
        const config = ConfigSchema.parse({
          temporal: { address, namespace, taskQueue: ctx.taskQueue },
          agents,
          api: {
            listen: { host: '127.0.0.1', port: apiPort },
            callers: [{ tokenFromEnv: STATIC_ENV, tenant: 'acme', user: 'dev-1' }],
            issuers: [{ issuer: provider.issuer, audience: BATON_RESOURCE, tenantClaim: 'tenant', allowHttp: true }],
            signIn: {
              oidc: {
                issuer: provider.issuer,
                clientId: 'baton-web',
                clientSecret: { fromEnv: WEB_SECRET_ENV },
                tenantClaim: 'tenant',
                allowHttp: true,
              },
            },
            rateLimit: { requestsPerMinute: 6000, burst: 1000 },
            // Every bad token counts against this address: the tests send dozens.
            limits: { unknownTokens: { perMinute: 1000, burst: 1000 } },
          },
          serve,
        });
        const ui = await startUi(config, address, pino({ level: 'warn' }));
        try {
          await fn(ui, ctx);
        } finally {
          await ui.close();
        }
      },
      { serve: ConfigSchema.parse({ serve }).serve },
    );
  };

  /** The official JS client over `binding`, sending `token`. */
  const a2aClient = (ui: RunningUi, binding: 'JSONRPC' | 'HTTP+JSON' | 'GRPC') =>
    new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory(), new RestTransportFactory(), new GrpcTransportFactory()],
        preferredTransports: [binding],
      }),
    ).createFromUrl(`${ui.servedAgents['supplier-check']}/`);
  const send = (text: string, id: string, configuration: Record<string, unknown> = {}) =>
    SendMessageRequest.fromJSON({ message: { messageId: id, role: 'ROLE_USER', parts: [{ text }] }, configuration });

  it('takes the JWTs on the API, every binding and MCP; scopes decide what each may do; the card says so', async () => {
    await withUi(async (ui) => {
      const full = await tokenOf('partner');
      const readOnly = await tokenOf('partner-readonly', 'baton:read');
      const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

      // The card declares exactly what is enforced: the static tokens and the provider's.
      const card = (await (await fetch(`${ui.servedAgents['supplier-check']}/.well-known/agent-card.json`)).json()) as {
        securitySchemes: Record<string, Record<string, { openIdConnectUrl?: string }>>;
        securityRequirements: { schemes: Record<string, { list: string[] }> }[];
      };
      assert.deepEqual(Object.keys(card.securitySchemes).sort(), ['bearer', 'oidc']);
      assert.equal(
        card.securitySchemes.oidc?.openIdConnectSecurityScheme?.openIdConnectUrl,
        `${provider.issuer}/.well-known/openid-configuration`,
      );
      assert.deepEqual(card.securityRequirements[1]?.schemes.oidc?.list, ['baton:delegate']);

      // The HTTP API: who the token is, and what its scopes allow.
      const me = (await (await fetch(`${ui.url}/api/v1/whoami`, { headers: bearer(full) })).json()) as { tenant: string; user: string };
      assert.deepEqual(me, { tenant: 'acme', user: 'partner' });
      const start = (t: string) =>
        fetch(`${ui.url}/api/v1/delegations`, {
          method: 'POST',
          headers: { ...bearer(t), 'content-type': 'application/json' },
          body: JSON.stringify({ agent: 'supplier-qa', parts: [{ text: FULL }] }),
        });
      assert.equal((await start(full)).status, 201);
      const forbidden = await start(readOnly);
      assert.equal(forbidden.status, 403);
      assert.match(JSON.stringify(await forbidden.json()), /Forbidden.*does not grant \\"delegate\\"/);
      assert.equal((await fetch(`${ui.url}/api/v1/delegations`, { headers: bearer(readOnly) })).status, 200);

      // The served agent, on each binding: the full token sends, the read-only one is refused before any work.
      for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const) {
        const client = await a2aClient(ui, binding);
        const done = await client.sendMessage(send(FULL, `jwt-${binding}-${process.pid}`), { serviceParameters: bearer(full) });
        assert.equal((Task.toJSON(done as Task) as { status?: { state?: string } }).status?.state, 'TASK_STATE_COMPLETED', binding);
        await assert.rejects(
          client.sendMessage(send(FULL, `ro-${binding}-${process.pid}`), { serviceParameters: bearer(readOnly) }),
          /403|PERMISSION_DENIED|permission|does not grant/i,
          binding,
        );
      }

      // MCP: a session with the token, a tool that acts refused to the read-only one.
      const mcp = (t: string, body: unknown, session?: string) =>
        fetch(`${ui.url}/mcp`, {
          method: 'POST',
          headers: {
            ...bearer(t),
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(session ? { 'mcp-session-id': session } : {}),
          },
          body: JSON.stringify(body),
        });
      const init = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      };
      const opened = await mcp(readOnly, init);
      assert.equal(opened.status, 200);
      const session = opened.headers.get('mcp-session-id') ?? '';
      const call = {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'delegate', arguments: { agent: 'supplier-qa', text: FULL } },
      };
      const refused = await mcp(readOnly, call, session);
      assert.equal(refused.status, 403);
      assert.match(await refused.text(), /Forbidden: this caller may not delegate here: its token does not grant/);
    });
  });

  it('Baton delegates to its own served agent over gRPC with tokens from the provider, as the card asks', async () => {
    const grpcPort = await freePort();
    process.env.BATON_TEST_PARTNER_SECRET = provider.secrets.partner;
    const entry = loopbackAgent(`http://127.0.0.1:${apiPort}/a2a/supplier-check/.well-known/agent-card.json`, {
      binding: 'GRPC',
      allowedOrigins: [`http://127.0.0.1:${grpcPort}`],
      oauth2: {
        tokenUrl: provider.tokenUrl,
        clientId: 'partner',
        clientSecret: { fromEnv: 'BATON_TEST_PARTNER_SECRET' },
        scopes: ['baton:read', 'baton:delegate'],
        resource: BATON_RESOURCE,
      },
    } as never);
    await withUi(
      async (_ui, ctx) => {
        const baton = batonFor(ctx);
        const record = await baton.result(await baton.start({ agent: 'baton-grpc', parts: [{ text: FULL }] }));
        assert.equal(record.outcome?.kind, 'ACCEPTED', JSON.stringify(record.outcome));
        assert.equal(record.agent?.interface?.binding, 'GRPC');
        // The served task is the partner's: the token named acme/partner.
        const inner = await batonFor(ctx, 'acme', 'partner').show(record.remote.taskId as string);
        assert.equal(inner.owner, 'partner');
      },
      { 'baton-grpc': entry },
      grpcPort,
    );
  });

  it('refuses every bad token the same way on every surface, and keeps tenants apart', async () => {
    await withUi(async (ui) => {
      const now = Math.floor(Date.now() / 1000);
      const claims = {
        iss: provider.issuer,
        aud: BATON_RESOURCE,
        sub: 'partner',
        tenant: 'acme',
        scope: BATON_SCOPES,
        iat: now,
        exp: now + 300,
      };
      const { SignJWT, generateKeyPair } = await import('jose');
      const stranger = await generateKeyPair('RS256');
      const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const hmac = (header: object, payload: object, secret: string) => {
        const input = `${b64(header)}.${b64(payload)}`;
        return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
      };
      const bad: Record<string, string> = {
        expired: await provider.sign({ ...claims, iat: now - 600, exp: now - 300 }),
        'not yet valid': await provider.sign({ ...claims, nbf: now + 600 }),
        'another audience': await provider.sign({ ...claims, aud: 'urn:someone-else' }),
        'another issuer': await provider.sign({ ...claims, iss: 'http://127.0.0.1:1' }),
        unsigned: `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`,
        'HMAC with the public key': hmac({ alg: 'HS256', kid: 'provider-1', typ: 'JWT' }, claims, provider.publicKeyPem),
        'unknown key id': await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'stranger' }).sign(stranger.privateKey),
        'no tenant claim': await provider.sign({ ...claims, tenant: undefined }),
      };
      const bodies = new Set<string>();
      for (const [what, token] of Object.entries(bad)) {
        const headers = { authorization: `Bearer ${token}` };
        const api = await fetch(`${ui.url}/api/v1/whoami`, { headers });
        assert.equal(api.status, 401, `API, ${what}`);
        bodies.add(await api.text());
        const rpc = await fetch(`${ui.servedAgents['supplier-check']}/jsonrpc`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
        });
        assert.equal(rpc.status, 401, `JSON-RPC, ${what}`);
        const mcp = await fetch(`${ui.url}/mcp`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: '{}',
        });
        assert.equal(mcp.status, 401, `MCP, ${what}`);
        const grpc = await a2aClient(ui, 'GRPC');
        await assert.rejects(
          grpc.getTask({ tenant: '', id: 'x', historyLength: 0 }, { serviceParameters: headers }),
          /UNAUTHENTICATED|16/,
          `gRPC, ${what}`,
        );
      }
      assert.equal(bodies.size, 1, 'every refusal reads the same');

      // Another tenant's task answers exactly as an unknown one.
      const acme = await a2aClient(ui, 'JSONRPC');
      const task = (await acme.sendMessage(send(FULL, `tenant-${process.pid}`), {
        serviceParameters: { authorization: `Bearer ${await tokenOf('partner')}` },
      })) as { id: string };
      const globex = { serviceParameters: { authorization: `Bearer ${await tokenOf('partner-globex')}` } };
      const other = await acme.getTask({ tenant: '', id: task.id, historyLength: 0 }, globex).catch((e: Error) => e.message);
      const unknown = await acme.getTask({ tenant: '', id: `${task.id}-nope`, historyLength: 0 }, globex).catch((e: Error) => e.message);
      assert.equal(typeof other, 'string');
      assert.equal(String(other).replace(task.id, '<id>'), String(unknown).replace(`${task.id}-nope`, '<id>'));
    });
  });

  it('the official Python client gets a token by client credentials from the card and calls each binding', async () => {
    const python = join(projectRoot(), '.baton', 'tools', 'a2a-python-1.3.0', 'bin', 'python');
    assert.ok(existsSync(python), `no ${python}: run npm run setup -- --test (it installs a2a-sdk from PyPI)`);
    await withUi(async (ui) => {
      const run = await execFileAsync(
        python,
        [
          join(projectRoot(), 'test', 'interop', 'python-oidc-client.py'),
          ui.servedAgents['supplier-check'] as string,
          'partner',
          provider.secrets.partner as string,
          `py-oidc-${process.pid}`,
        ],
        { encoding: 'utf8', timeout: 120_000 },
      ).catch((err: { stderr?: string; message: string }) => assert.fail(`the Python client failed: ${err.stderr ?? err.message}`));
      const seen = JSON.parse(run.stdout) as Record<string, unknown>;
      assert.equal(seen.scheme, 'oidc');
      assert.equal(seen.discovery, `${provider.issuer}/.well-known/openid-configuration`);
      for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC']) assert.deepEqual(seen[binding], ['TASK_STATE_COMPLETED'], binding);
    });
  });

  it("webhooks to callers carry a JWT over the task and the body, verifiable at Baton's JWKS", async () => {
    const webhook = new Webhook();
    await webhook.start();
    try {
      await withUi(async (ui) => {
        const client = await a2aClient(ui, 'JSONRPC');
        const token = await tokenOf('partner');
        const sent = send(FULL, `push-${process.pid}`, {
          returnImmediately: true,
          taskPushNotificationConfig: { url: `${webhook.url}/hook`, token: 'caller-webhook-token-0123' },
        });
        const task = (await client.sendMessage(sent, { serviceParameters: { authorization: `Bearer ${token}` } })) as { id: string };
        const posts = await webhook.until(
          '/hook',
          (p) =>
            p.some(
              (x) => x.body.task?.status.state === 'TASK_STATE_COMPLETED' || x.body.statusUpdate?.status.state === 'TASK_STATE_COMPLETED',
            ),
          'COMPLETED',
        );
        const { createRemoteJWKSet, jwtVerify } = await import('jose');
        const keys = createRemoteJWKSet(new URL(`${ui.url}/.well-known/jwks.json`));
        for (const post of posts) {
          const jwt = post.headers['x-baton-notification-jwt'];
          assert.equal(typeof jwt, 'string', 'every notification carries the JWT');
          const { payload } = await jwtVerify(jwt as string, keys, { audience: `${webhook.url}/hook`, algorithms: ['ES256'] });
          assert.equal(payload.taskId, task.id);
          assert.equal(payload.bodySha256, createHash('sha256').update(post.raw).digest('base64url'), 'the JWT covers this very body');
          assert.ok((payload.exp as number) - (payload.iat as number) <= 300);
          assert.equal(post.headers['x-a2a-notification-token'], 'caller-webhook-token-0123', 'the caller token still comes too');
        }
        // A body changed on the way no longer matches.
        const first = posts[0];
        assert.ok(first);
        assert.notEqual(
          createHash('sha256').update(`${first.raw} `).digest('base64url'),
          (await jwtVerify(first.headers['x-baton-notification-jwt'] as string, keys)).payload.bodySha256,
        );
      });
    } finally {
      await webhook.close();
    }
  });

  it('operators sign in with OpenID Connect in Chromium: a session cookie, CSRF on changes, sign-out', async () => {
    const browser = await launchBrowser();
    try {
      await withUi(async (ui) => {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(ui.url);
        await page.click('[data-action="oidc-sign-in"]');
        // The provider's own pages: its login form, then consent.
        await page.waitForURL(/\/interaction\//);
        await page.fill('input[name="login"]', 'ops-7');
        await page.fill('input[name="password"]', 'any');
        await page.click('button[type="submit"]');
        await page.waitForSelector('button[autofocus], button[type="submit"]');
        if (page.url().includes('/interaction/')) await page.click('button[type="submit"]');
        await page.waitForURL(`${ui.url}/**`);
        await page.waitForSelector('#whoami:text-is("acme/ops-7")');
        const cookie = (await context.cookies(ui.url)).find((c) => c.name === 'baton_session');
        assert.ok(cookie, 'a session cookie');
        assert.equal(cookie.httpOnly, true);
        assert.equal(cookie.sameSite, 'Lax');
        assert.equal(cookie.secure, false, 'not Secure on loopback plain http');
        // From the page: a change without the CSRF token is refused; reading is not.
        const statuses = await page.evaluate(async (text) => {
          const post = (headers: Record<string, string>) =>
            fetch('/api/v1/delegations', {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...headers },
              body: JSON.stringify({ agent: 'supplier-qa', parts: [{ text }] }),
            }).then((r) => r.status);
          const session = (await (await fetch('/auth/session')).json()) as { csrf: string };
          return {
            read: (await fetch('/api/v1/whoami')).status,
            noCsrf: await post({}),
            wrongCsrf: await post({ 'x-csrf-token': 'nope' }),
            withCsrf: await post({ 'x-csrf-token': session.csrf }),
          };
        }, FULL);
        assert.deepEqual(statuses, { read: 200, noCsrf: 403, wrongCsrf: 403, withCsrf: 201 });
        await page.click('#sign-out');
        await page.waitForSelector('[data-action="oidc-sign-in"]');
        assert.equal(await page.evaluate(() => fetch('/api/v1/whoami').then((r) => r.status)), 401);
        await context.close();
      });
    } finally {
      await browser.close();
    }
  });
});
