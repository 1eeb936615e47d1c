/**
 * What calling an agent with OAuth 2.0 costs (docs/identity.md): one delegation to an agent that
 * completes at once, on one `baton worker` process, sampled in turn: without credentials and with a
 * client-credentials token, each both on an agent name already used (card and token cached) and on a
 * fresh name (the card fetched again, and with OAuth a token fetched, in the first send). The agent
 * verifies every token it gets (jose, the provider's keys); the provider is `oidc-provider` on loopback.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type express from 'express';
import { credentialsFor } from '../src/a2a/agent-credentials';
import { basicAuthorization } from '../src/auth/basic-auth';
import { createAgentFetch } from '../src/a2a/agent-fetch';
import { AgentTokens } from '../src/a2a/agent-tokens';
import { BatonClient } from '../src/client/baton-client';
import { AgentEntrySchema } from '../src/config/schema';
import { startAgentServer } from '../src/demo/agent-server';
import { bookingDesk } from '../src/demo/trip-agents';
import { AGENT_RESOURCE, startOidcProvider } from '../infra/oidc-provider';
import { watchedWorker } from './parked';
import { quantile, withSection, writeSection, type ReportSection, type ServerKind } from './report-section';

interface Variant {
  p50: number;
  p99: number;
}

export interface IdentityFigures {
  date: string;
  command: string;
  samples: number;
  /** The token endpoint's own round trip (client credentials, from this process), p50 in ms. */
  tokenFetchP50: number;
  plainWarm: Variant;
  oauthWarm: Variant;
  plainFresh: Variant;
  oauthFresh: Variant;
  /** Tokens the provider issued to the worker during the sampled delegations. */
  tokensIssued: number;
  /** What Baton's own side adds per call with a cached token (the credentials of one call, in this process), µs. */
  cachedLookupUs: number;
  /** The agent's verification of one token (jose, keys cached), p50 in ms: the agent's cost, not Baton's. */
  agentVerifyP50: number;
  /** Calls the agent got per OAuth delegation (each verified). */
  callsPerDelegation: number;
  /** One GetTask through Baton's agent fetch, the agent not verifying: without credentials, and with a cached token, p50 in ms. */
  call: { plainP50: number; oauthP50: number; samples: number };
}

export interface IdentityOptions {
  client: Client;
  address: string;
  namespace: string;
  samples: number;
  say(line: string): void;
}

const KINDS = ['plainWarm', 'oauthWarm', 'plainFresh', 'oauthFresh'] as const;
type Kind = (typeof KINDS)[number];

/** Every order of `xs`. */
function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

export async function measureIdentityCost(o: IdentityOptions): Promise<Omit<IdentityFigures, 'date' | 'command'>> {
  const provider = await startOidcProvider({ accessTokenTtlSeconds: 3600 });
  const { createRemoteJWKSet, jwtVerify } = await import('jose');
  const keys = createRemoteJWKSet(new URL(provider.jwksUri));
  // A call without a token is let through (the plain variants); one with a token must verify.
  const verifyTimes: number[] = [];
  let verifying = true;
  const authorize = async (req: express.Request): Promise<boolean> => {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !verifying) return true;
    const t = performance.now();
    await jwtVerify(token, keys, { issuer: provider.issuer, audience: AGENT_RESOURCE, algorithms: ['RS256'] });
    verifyTimes.push(performance.now() - t);
    return true;
  };
  const agent = await startAgentServer(bookingDesk('instant', 'Completes at once', { workMs: 0 }), { authorize });
  process.env.BATON_BENCH_IDP_SECRET = provider.secrets['baton-agent'];
  const oauth = `oauth2: { tokenUrl: "${provider.tokenUrl}", clientId: baton-agent, clientSecret: { fromEnv: BATON_BENCH_IDP_SECRET }, resource: "${AGENT_RESOURCE}" }`;
  const entry = (name: string, withOauth: boolean) =>
    `  ${name}: { card: "${agent.url}", allowHttp: true, allowPrivateNetwork: true, acceptance: accept-any${withOauth ? `, ${oauth}` : ''} }`;
  const fresh = o.samples + 5;
  const lines = [
    'agents:',
    entry('plain', false),
    entry('oauth', true),
    ...Array.from({ length: fresh }, (_, i) => entry(`plain-${i}`, false)),
    ...Array.from({ length: fresh }, (_, i) => entry(`oauth-${i}`, true)),
  ];
  const worker = await watchedWorker('bench-identity', o.address, lines);
  const baton = new BatonClient(o.client.connection, {
    namespace: o.namespace,
    taskQueue: worker.queue,
    caller: { tenant: 'bench', user: 'bench' },
  });
  let nextFresh = 0;
  const agentFor = (k: Kind, i: number): string =>
    k === 'plainWarm' ? 'plain' : k === 'oauthWarm' ? 'oauth' : `${k === 'plainFresh' ? 'plain' : 'oauth'}-${i}`;
  const once = async (name: string): Promise<number> => {
    const t = performance.now();
    await baton.result(await baton.start({ agent: name, parts: [{ text: `book it ${randomUUID()}` }] }));
    return performance.now() - t;
  };
  try {
    // Warm-up: the worker's bundle and connections, both warm names' cards and token.
    for (let i = 0; i < 5; i++) {
      await once('plain');
      await once('oauth');
      await once(`plain-${fresh - 1 - i}`);
      await once(`oauth-${fresh - 1 - i}`);
    }
    const tokenTimes: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await fetch(provider.tokenUrl, {
        method: 'POST',
        headers: {
          authorization: basicAuthorization('baton-agent', provider.secrets['baton-agent']),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource: AGENT_RESOURCE }),
      }).then((r) => r.json());
      tokenTimes.push(performance.now() - t);
    }
    const issuedBefore = provider.issued.length;
    const verifiedBefore = verifyTimes.length;
    const lat: Record<Kind, number[]> = { plainWarm: [], oauthWarm: [], plainFresh: [], oauthFresh: [] };
    // Every order of the four in turn: a rotation would give each variant the same predecessor every
    // time, and a delegation is measurably slower right after some kinds than others (a first run of
    // this benchmark saw 7 ms between two variants that were the same).
    const orders = permutations([...KINDS]);
    for (let i = 0; i < o.samples; i++) {
      const n = nextFresh++;
      for (const k of orders[i % orders.length] as Kind[]) lat[k].push(await once(agentFor(k, n)));
      if ((i + 1) % 50 === 0) o.say(`  ${i + 1}/${o.samples}`);
    }
    const variant = (k: Kind): Variant => ({ p50: quantile(lat[k], 0.5), p99: quantile(lat[k], 0.99) });
    verifying = false;
    const batonSide = await measureBatonSide(agent.url, provider.tokenUrl, o.samples * 5);
    return {
      samples: o.samples,
      tokenFetchP50: quantile(tokenTimes, 0.5),
      plainWarm: variant('plainWarm'),
      oauthWarm: variant('oauthWarm'),
      plainFresh: variant('plainFresh'),
      oauthFresh: variant('oauthFresh'),
      tokensIssued: provider.issued.length - issuedBefore,
      agentVerifyP50: quantile(verifyTimes, 0.5),
      callsPerDelegation: (verifyTimes.length - verifiedBefore) / (2 * o.samples),
      ...batonSide,
    };
  } finally {
    await worker.stop();
    await agent.close();
    await provider.close();
  }
}

/**
 * Baton's side alone: the credentials of one call with a cached token (in-process), and one call
 * through the agent fetch in turn with and without a token, the agent not verifying.
 */
async function measureBatonSide(
  agentUrl: string,
  tokenUrl: string,
  callSamples: number,
): Promise<Pick<IdentityFigures, 'cachedLookupUs' | 'call'>> {
  // Baton's side of a call with a cached token, alone: what the worker does before each request.
  const tokens = new AgentTokens();
  const oauthEntry = AgentEntrySchema.parse({
    card: agentUrl,
    allowHttp: true,
    allowPrivateNetwork: true,
    oauth2: {
      tokenUrl,
      clientId: 'baton-agent',
      clientSecret: { fromEnv: 'BATON_BENCH_IDP_SECRET' },
      resource: AGENT_RESOURCE,
    },
  });
  await credentialsFor('lookup', oauthEntry, { tokens });
  const rounds = 20_000;
  const t0 = performance.now();
  for (let i = 0; i < rounds; i++) await credentialsFor('lookup', oauthEntry, { tokens });
  const cachedLookupUs = ((performance.now() - t0) * 1000) / rounds;
  // One call through the agent fetch Baton uses, in turn with and without a (cached) token; the agent
  // does not verify here, so the difference is Baton's side and the bytes of the header.
  const plainEntry = AgentEntrySchema.parse({ card: agentUrl, allowHttp: true, allowPrivateNetwork: true });
  const fetches = { plain: createAgentFetch('plain-call', plainEntry), oauth: createAgentFetch('lookup', oauthEntry, { tokens }) };
  const rpc = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'none' } });
  const callOnce = async (k: 'plain' | 'oauth'): Promise<number> => {
    const t = performance.now();
    const res = await fetches[k](`${agentUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: rpc,
    });
    await res.text();
    return performance.now() - t;
  };
  const callTimes = { plain: [] as number[], oauth: [] as number[] };
  for (let i = 0; i < 50; i++) await Promise.all([callOnce('plain'), callOnce('oauth')]);
  for (let i = 0; i < callSamples; i++)
    for (const k of i % 2 ? (['plain', 'oauth'] as const) : (['oauth', 'plain'] as const)) callTimes[k].push(await callOnce(k));
  return {
    cachedLookupUs,
    call: { plainP50: quantile(callTimes.plain, 0.5), oauthP50: quantile(callTimes.oauth, 0.5), samples: callSamples },
  };
}

const diff = (a: Variant, b: Variant): string => `${(a.p50 - b.p50).toFixed(1)} / ${(a.p99 - b.p99).toFixed(1)} ms`;

const SECTION: ReportSection<IdentityFigures> = {
  name: 'identity',
  marks: ['<!-- identity: written by bench/identity-cost.ts -->', '<!-- end of identity -->'],
  after: '<!-- end of mcp tools -->',
  heading: [
    '## What OAuth 2.0 to an agent costs (docs/identity.md)',
    '',
    'One delegation to an agent that completes at once, on one `baton worker` process as shipped, sampled in turn in the same run: without credentials, and with a client-credentials access token from `oidc-provider` on loopback (the agent verifies each token with jose). "Cached" uses one agent name throughout (its card and token are reused); "first send" uses a fresh name for each delegation, so its card is fetched again and, with OAuth, a token is fetched in the first send.',
  ],
  rows: [
    ['samples of each', (f) => String(f.samples)],
    ['token endpoint round trip, p50', (f) => `${f.tokenFetchP50.toFixed(1)} ms`],
    ['no credentials, cached card: p50 / p99', (f) => `${f.plainWarm.p50.toFixed(0)} / ${f.plainWarm.p99.toFixed(0)} ms`],
    [
      'OAuth, cached token: p50 / p99 (added: p50 / p99)',
      (f) => `${f.oauthWarm.p50.toFixed(0)} / ${f.oauthWarm.p99.toFixed(0)} ms (${diff(f.oauthWarm, f.plainWarm)})`,
    ],
    [
      'no credentials, card fetched in the first send: p50 / p99',
      (f) => `${f.plainFresh.p50.toFixed(0)} / ${f.plainFresh.p99.toFixed(0)} ms`,
    ],
    [
      'OAuth, token fetched in the first send: p50 / p99 (added: p50 / p99)',
      (f) => `${f.oauthFresh.p50.toFixed(0)} / ${f.oauthFresh.p99.toFixed(0)} ms (${diff(f.oauthFresh, f.plainFresh)})`,
    ],
    ['tokens the provider issued while sampling', (f) => String(f.tokensIssued)],
    ["Baton's side of a call with a cached token (in-process, 20,000 calls)", (f) => `${f.cachedLookupUs.toFixed(1)} µs`],
    [
      'one call through the agent fetch, the agent not verifying: none / cached token, p50',
      (f) => `${f.call.plainP50.toFixed(2)} / ${f.call.oauthP50.toFixed(2)} ms (${f.call.samples} each)`,
    ],
    [
      "the agent's verification of a token (jose), p50, and its calls per delegation",
      (f) => `${f.agentVerifyP50.toFixed(2)} ms, ${f.callsPerDelegation.toFixed(1)} calls`,
    ],
  ],
};

export const writeIdentity = (out: string, kind: ServerKind, figures: IdentityFigures): void => writeSection(out, SECTION, kind, figures);
export const withIdentitySection = (out: string, text: string): string => withSection(out, SECTION, text);
