/**
 * Baton calling agents that require OAuth 2.0: a real OpenID provider on loopback (oidc-provider)
 * issues JWT access tokens by client credentials; agents on the official SDK verify them with jose.
 * Tokens are fetched when needed, refreshed before they expire, fetched again once after a 401; a
 * provider that is down is a passing outage; a card never chooses where a client secret goes.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type express from 'express';
import { startAgentServer, type AgentServerOptions, type DemoAgentDefinition, type RunningAgent } from '../../src/demo/agent-server';
import { artifactEvent, statusEvent } from '../../src/demo/events';
import { executor, openTask, skill } from '../../src/demo/kit';
import { makeCertificates } from '../../infra/cluster/certs';
import { AgentTokens } from '../../src/a2a/agent-tokens';
import { AgentEntrySchema } from '../../src/config/schema';
import { closeServer } from '../../src/runtime/listen';
import { AGENT_RESOURCE, startOidcProvider, type RunningOidcProvider } from '../../infra/oidc-provider';
import { batonFor, historyText, loopbackAgent, withWorker } from '../helpers/temporal';

const SECRET_ENV = 'BATON_TEST_AGENT_CLIENT_SECRET';
const REVOKED_ENV = 'BATON_TEST_REVOKED_CLIENT_SECRET';

/** An agent that works for `workMs`, then completes with an artifact. */
function slowAgent(name: string, workMs: number): DemoAgentDefinition {
  return {
    name,
    description: 'Works for a while, then reports.',
    skills: skill('work', 'Works'),
    executor: executor(async (ctx, bus) => {
      openTask(ctx, bus);
      bus.publish(statusEvent(ctx.taskId, ctx.contextId, 'TASK_STATE_WORKING', 'working'));
      await new Promise((r) => setTimeout(r, workMs));
      bus.publish(artifactEvent(ctx.taskId, ctx.contextId, { artifactId: `${ctx.taskId}-r`, name: 'report', parts: [{ text: 'done' }] }));
      bus.publish(statusEvent(ctx.taskId, ctx.contextId, 'TASK_STATE_COMPLETED', 'done'));
      bus.finished();
    }),
  };
}

/** What an agent saw: each call's token, and whether it verified when it arrived. */
interface Seen {
  calls: { jti?: string; valid: boolean; why?: string }[];
}

/** An agent that takes only access tokens of `provider` for it (issuer, audience, RS256, expiry), checked with jose. */
async function tokenAgent(
  provider: RunningOidcProvider,
  def: DemoAgentDefinition,
  opts: AgentServerOptions & { refuseFirst?: boolean } = {},
): Promise<{ agent: RunningAgent; seen: Seen }> {
  const { createRemoteJWKSet, jwtVerify } = await import('jose');
  const keys = createRemoteJWKSet(new URL(provider.jwksUri));
  const seen: Seen = { calls: [] };
  let refused = !opts.refuseFirst;
  const authorize = async (req: express.Request): Promise<boolean> => {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token) {
      seen.calls.push({ valid: false, why: 'no token' });
      return false;
    }
    try {
      const { payload } = await jwtVerify(token, keys, { issuer: provider.issuer, audience: AGENT_RESOURCE, algorithms: ['RS256'] });
      if (!refused) {
        // The agent revokes this one token (its own reasons): Baton must fetch another, once.
        refused = true;
        seen.calls.push({ jti: payload.jti, valid: true, why: 'refused by the agent' });
        return false;
      }
      seen.calls.push({ jti: payload.jti, valid: true });
      return true;
    } catch (err) {
      seen.calls.push({ valid: false, why: (err as Error).message });
      return false;
    }
  };
  const agent = await startAgentServer(def, { ...opts, authorize });
  return { agent, seen };
}

describe('calling agents that require OAuth 2.0', () => {
  let provider: RunningOidcProvider;
  let keyFile: string;
  before(async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    keyFile = join(mkdtempSync(join(tmpdir(), 'baton-pkjwt-')), 'client-key.pem');
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    // Tokens live 2 s: a delegation of 9 s outlives four of them.
    provider = await startOidcProvider({
      accessTokenTtlSeconds: 2,
      assertionKey: { ...(publicKey.export({ format: 'jwk' }) as Record<string, unknown>), alg: 'RS256', use: 'sig', kid: 'baton-1' },
    });
    process.env[SECRET_ENV] = provider.secrets['baton-agent'];
    process.env[REVOKED_ENV] = provider.secrets['baton-agent-revoked'];
  });
  after(async () => {
    await provider.close();
    delete process.env[SECRET_ENV];
    delete process.env[REVOKED_ENV];
  });

  const oauth = (extra: Record<string, unknown> = {}) => ({
    tokenUrl: provider.tokenUrl,
    clientId: 'baton-agent',
    clientSecret: { fromEnv: SECRET_ENV },
    scopes: ['agent:call'],
    resource: AGENT_RESOURCE,
    ...extra,
  });

  it('outlives three token lifetimes: ACCEPTED, and the agent saw only valid tokens', async () => {
    const { agent, seen } = await tokenAgent(provider, slowAgent('slow-lab', 9_000));
    const issuedBefore = provider.issued.filter((i) => i.clientId === 'baton-agent').length;
    try {
      await withWorker({ 'slow-lab': loopbackAgent(agent.url, { oauth2: oauth(), observe: 'poll' } as never) }, async (ctx) => {
        const baton = batonFor(ctx);
        const id = await baton.start({ agent: 'slow-lab', parts: [{ text: 'work' }] });
        const record = await baton.result(id);
        assert.equal(record.outcome?.kind, 'ACCEPTED', JSON.stringify(record.outcome));
        const history = await historyText(ctx.client, id);
        assert.ok(!history.includes(provider.secrets['baton-agent'] as string), 'the client secret is not in history');
        assert.ok(!/eyJ[A-Za-z0-9_-]{10,}\.eyJ/.test(history), 'no JWT is in history');
      });
    } finally {
      await agent.close();
    }
    assert.ok(seen.calls.length >= 5, `the agent was called ${seen.calls.length} times`);
    assert.deepEqual(
      seen.calls.filter((c) => !c.valid),
      [],
      `every call carried a token that verified when it arrived: ${JSON.stringify(seen.calls.filter((c) => !c.valid))}`,
    );
    const tokens = new Set(seen.calls.map((c) => c.jti));
    assert.ok(tokens.size >= 4, `the delegation used ${tokens.size} tokens over 9 s of 2-s tokens`);
    const issued = provider.issued.filter((i) => i.clientId === 'baton-agent').length - issuedBefore;
    assert.ok(issued <= tokens.size + 1, `tokens were reused while valid (${issued} issued, ${tokens.size} used)`);
    assert.ok(seen.calls.length > tokens.size, 'a token served several calls');
  });

  it('authenticates with private_key_jwt, and fetches a new token once after a 401', async () => {
    const { agent, seen } = await tokenAgent(provider, slowAgent('quick-lab', 0), { refuseFirst: true });
    try {
      const entry = oauth({ clientId: 'baton-agent-pkjwt', clientSecret: undefined, privateKeyJwt: { keyFile, keyId: 'baton-1' } });
      await withWorker({ 'quick-lab': loopbackAgent(agent.url, { oauth2: entry } as never) }, async (ctx) => {
        const baton = batonFor(ctx);
        const record = await baton.result(await baton.start({ agent: 'quick-lab', parts: [{ text: 'work' }] }));
        assert.equal(record.outcome?.kind, 'ACCEPTED', JSON.stringify(record.outcome));
      });
    } finally {
      await agent.close();
    }
    assert.equal(seen.calls[0]?.why, 'refused by the agent');
    assert.notEqual(seen.calls[1]?.jti, seen.calls[0]?.jti, 'the refused token was replaced by a fresh one');
    assert.ok(seen.calls.slice(1).every((c) => c.valid && !c.why));
  });

  it('redacts an access token an agent echoes back: it reaches neither history nor the record', async () => {
    let lastToken = '';
    const echo: DemoAgentDefinition = {
      name: 'echo-lab',
      description: 'Repeats the token it was sent.',
      skills: skill('echo', 'Echoes'),
      executor: executor(async (ctx, bus) => {
        openTask(ctx, bus);
        bus.publish(
          artifactEvent(ctx.taskId, ctx.contextId, {
            artifactId: `${ctx.taskId}-e`,
            name: 'echo',
            parts: [{ text: `you sent ${lastToken}` }],
          }),
        );
        bus.publish(statusEvent(ctx.taskId, ctx.contextId, 'TASK_STATE_COMPLETED', `thanks for ${lastToken}`));
        bus.finished();
      }),
    };
    const agent = await startAgentServer(echo, {
      authorize: (req) => {
        lastToken = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
        return lastToken !== '';
      },
    });
    try {
      await withWorker({ 'echo-lab': loopbackAgent(agent.url, { oauth2: oauth() } as never) }, async (ctx) => {
        const baton = batonFor(ctx);
        const id = await baton.start({ agent: 'echo-lab', parts: [{ text: 'echo' }] });
        const record = await baton.result(id);
        assert.ok(lastToken.length > 100, 'the agent got a token');
        const history = await historyText(ctx.client, id);
        assert.ok(!history.includes(lastToken), 'the echoed token is not in history');
        assert.ok(history.includes('[redacted: a configured secret]'), 'it was replaced by the marker');
        assert.ok(!JSON.stringify(record).includes(lastToken), 'nor in the record');
      });
    } finally {
      await agent.close();
    }
  });

  it('a refused token is replaced once; a refused replacement is final (the rule the gRPC path follows)', async () => {
    const tokens = new AgentTokens();
    const entry = AgentEntrySchema.parse({ card: 'http://127.0.0.1:9/', allowHttp: true, allowPrivateNetwork: true, oauth2: oauth() });
    const first = await tokens.tokenFor('once', entry);
    assert.equal(await tokens.tokenFor('once', entry), first, 'held while valid');
    assert.equal(tokens.refused('once', entry, first), true, 'the first refusal is worth a fresh token');
    const second = await tokens.tokenFor('once', entry);
    assert.notEqual(second, first);
    assert.equal(tokens.refused('once', entry, second), false, 'the fresh one refused too: final');
    const third = await tokens.tokenFor('once', entry);
    assert.notEqual(third, second, 'the next call still gets a new token');
    assert.equal(tokens.refused('once', entry, first), true, 'a token already replaced says nothing about the current one');
    assert.equal(tokens.fetches.get('once'), 3);
  });

  it('waits out an identity provider that is down, then goes on', async () => {
    const { agent, seen } = await tokenAgent(provider, slowAgent('patient-lab', 0));
    provider.setDown(true);
    try {
      await withWorker({ 'patient-lab': loopbackAgent(agent.url, { oauth2: oauth() } as never) }, async (ctx) => {
        const baton = batonFor(ctx);
        const id = await baton.start({ agent: 'patient-lab', parts: [{ text: 'work' }] });
        await provider.downHits(2);
        const waiting = await baton.show(id);
        assert.equal(waiting.outcome, undefined, 'the delegation waits while the provider is down');
        provider.setDown(false);
        const record = await baton.result(id);
        assert.equal(record.outcome?.kind, 'ACCEPTED', JSON.stringify(record.outcome));
      });
    } finally {
      provider.setDown(false);
      await agent.close();
    }
    assert.ok(seen.calls.every((c) => c.valid));
  });

  it('presents a client certificate per agent (mutual TLS), as the card requires', async () => {
    const certs = makeCertificates(mkdtempSync(join(tmpdir(), 'baton-mtls-')));
    const peers: string[] = [];
    const agent = await startAgentServer(slowAgent('tls-lab', 0), {
      tls: { cert: readFileSync(certs.serverCert), key: readFileSync(certs.serverKey), ca: readFileSync(certs.ca) },
      cardSecurity: { securitySchemes: { mtls: { mtlsSecurityScheme: {} } }, securityRequirements: [{ schemes: { mtls: { list: [] } } }] },
      authorize: (req) => {
        peers.push(String((req.socket as TLSSocket).getPeerCertificate().subject?.CN));
        return true;
      },
    });
    try {
      assert.match(agent.url, /^https:\/\/127\.0\.0\.1:/);
      const tls = { certFile: certs.clientCert, keyFile: certs.clientKey, caFile: certs.ca };
      await withWorker({ 'tls-lab': loopbackAgent(agent.url, { tls } as never) }, async (ctx) => {
        const baton = batonFor(ctx);
        const record = await baton.result(await baton.start({ agent: 'tls-lab', parts: [{ text: 'work' }] }));
        assert.equal(record.outcome?.kind, 'ACCEPTED', JSON.stringify(record.outcome));
      });
    } finally {
      await agent.close();
    }
    assert.ok(
      peers.length > 0 && peers.every((cn) => cn === 'baton-worker'),
      `the agent saw the client certificate on every call: ${peers.join(', ')}`,
    );
  });

  it('refuses, before anything reaches the agent: a revoked client, a token endpoint that answers HTML, a card that names the token endpoint elsewhere or a scheme the entry cannot present', async () => {
    // The card names the provider's token endpoint (client credentials) and requires it.
    const cardSecurity = {
      securitySchemes: {
        oauth: {
          oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: provider.tokenUrl, scopes: { 'agent:call': 'call' } } } },
        },
      },
      securityRequirements: [{ schemes: { oauth: { list: ['agent:call'] } } }],
    };
    const tlsCard = { securitySchemes: { mtls: { mtlsSecurityScheme: {} } }, securityRequirements: [{ schemes: { mtls: { list: [] } } }] };
    const { agent: tlsAgent, seen: tlsSeen } = await tokenAgent(provider, slowAgent('tls-card', 0), { cardSecurity: tlsCard });
    const keyCard = {
      securitySchemes: { key: { apiKeySecurityScheme: { location: 'query', name: 'key' } } },
      securityRequirements: [{ schemes: { key: { list: [] } } }],
    };
    const { agent, seen } = await tokenAgent(provider, slowAgent('card-lab', 0), { cardSecurity });
    const { agent: keyAgent, seen: keySeen } = await tokenAgent(provider, slowAgent('key-lab', 0), { cardSecurity: keyCard });
    const html = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>sign in</html>'));
    await new Promise<void>((r) => html.listen(0, '127.0.0.1', r));
    const htmlUrl = `http://127.0.0.1:${(html.address() as AddressInfo).port}/token`;
    const providerOrigin = new URL(provider.issuer).origin;
    const logLines: Record<string, unknown>[] = [];
    try {
      await withWorker(
        {
          revoked: loopbackAgent(agent.url, {
            oauth2: oauth({ clientId: 'baton-agent-revoked', clientSecret: { fromEnv: REVOKED_ENV } }),
          } as never),
          'html-idp': loopbackAgent(agent.url, { oauth2: oauth({ tokenUrl: htmlUrl }) } as never),
          'from-card': loopbackAgent(agent.url, { oauth2: oauth({ tokenUrl: undefined, cardTokenOrigins: [providerOrigin] }) } as never),
          'card-elsewhere': loopbackAgent(agent.url, {
            oauth2: oauth({ tokenUrl: undefined, cardTokenOrigins: ['http://127.0.0.2:9'] }),
          } as never),
          'no-key': loopbackAgent(keyAgent.url, { oauth2: oauth() } as never),
          'no-cert': loopbackAgent(tlsAgent.url, { oauth2: oauth() } as never),
          'cert-missing': loopbackAgent(tlsAgent.url, { tls: { certFile: '/nonexistent/c.pem', keyFile: '/nonexistent/c.key' } } as never),
        },
        async (ctx) => {
          const baton = batonFor(ctx);
          const run = async (agentName: string) => baton.result(await baton.start({ agent: agentName, parts: [{ text: 'work' }] }));
          const issued = provider.issued.length;

          const revoked = await run('revoked');
          assert.equal(revoked.outcome?.kind, 'ERROR');
          assert.match(
            revoked.outcome?.reasons[0] ?? '',
            /token endpoint http:\/\/127\.0\.0\.1:\d+ refused the client credentials grant \(HTTP 4\d\d, invalid_client\): check agents\.revoked\.oauth2/,
          );

          const htmlIdp = await run('html-idp');
          assert.equal(htmlIdp.outcome?.kind, 'ERROR');
          assert.match(
            htmlIdp.outcome?.reasons[0] ?? '',
            /^ConfigInvalid: .*answered text\/html, not a bearer token: check agents\.html-idp\.oauth2\.tokenUrl/,
          );

          const elsewhere = await run('card-elsewhere');
          assert.equal(elsewhere.outcome?.kind, 'ERROR');
          assert.match(
            elsewhere.outcome?.reasons[0] ?? '',
            /^TrustRefused: .*its card names a token endpoint on http:\/\/127\.0\.0\.1:\d+, an origin agents\.card-elsewhere\.oauth2\.cardTokenOrigins does not list; no client secret is sent there/,
          );
          assert.equal(provider.issued.length, issued, 'no token was issued to any of them');

          const noKey = await run('no-key');
          assert.equal(noKey.outcome?.kind, 'ERROR');
          assert.match(
            noKey.outcome?.reasons[0] ?? '',
            /^ConfigInvalid: agent no-key: its card requires authentication this entry cannot present: scheme "key" \(API key in query "key"\): set agents\.no-key\.apiKey \{ in: query, name: key \}/,
          );
          const noCert = await run('no-cert');
          assert.match(
            noCert.outcome?.reasons[0] ?? '',
            /^ConfigInvalid: agent no-cert: .*scheme "mtls" \(mutual TLS\): set agents\.no-cert\.tls \(a client certificate\)/,
          );
          const certMissing = await run('cert-missing');
          assert.match(
            certMissing.outcome?.reasons[0] ?? '',
            /^ConfigInvalid: .*agents\.cert-missing\.tls\.certFile \/nonexistent\/c\.pem cannot be read \(ENOENT\)/,
          );
          assert.equal(tlsSeen.calls.length, 0, 'nothing reached the agent that wants a certificate');
          assert.equal(seen.calls.length, 0, 'nothing reached the agent');
          assert.equal(keySeen.calls.length, 0, 'nothing reached the agent that wants a key');

          const fromCard = await run('from-card');
          assert.equal(fromCard.outcome?.kind, 'ACCEPTED', JSON.stringify(fromCard.outcome));
          assert.ok(seen.calls.length > 0 && seen.calls.every((c) => c.valid));
        },
        { logLines },
      );
      const logged = JSON.stringify(logLines);
      assert.ok(logLines.length > 0, 'the worker logged the refusals');
      for (const secret of [provider.secrets['baton-agent'], provider.secrets['baton-agent-revoked']])
        assert.ok(!logged.includes(secret as string), 'no client secret in the logs');
      assert.ok(!/eyJ[A-Za-z0-9_-]{10,}\.eyJ/.test(logged), 'no token in the logs');
    } finally {
      await agent.close();
      await keyAgent.close();
      await tlsAgent.close();
      await closeServer(html);
    }
  });
});
