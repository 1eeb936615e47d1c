/**
 * Agent card resolution under the trust policy of the agent's registry entry: the guarded fetch
 * (https unless allowed, no private addresses unless allowed, redirects re-checked), a size cap on the
 * card and caps on its text fields, an optional JWS signature against pinned keys, and a sha256 of the
 * exact bytes, which are kept for audit. 0.3 cards are read through the SDK's compatibility layer.
 */
import { instrumentCall } from '../telemetry/a2a-call';
import { createHash } from 'node:crypto';
import { AGENT_CARD_PATH, AgentCard, verifyAgentCardSignature } from '@a2a-js/sdk';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { z } from 'zod';
import type { AgentEntry } from '../config/schema';
import type { ChosenInterface } from '../shared/delegation-types';
import { FailureType } from '../shared/failure-types';
import { createAgentFetch } from './agent-fetch';
import { AgentHttpError, parseRetryAfter } from './agent-http-errors';
import { policyOf } from './agent-policy';
import { rememberCardTokenUrl } from './agent-tokens';
import { cardTokenSources, onOrigins, refuseCardSecurity } from './card-security';
import { failure, toFailure } from './errors';
import { createGuardedFetch, type Lookup } from './guarded-fetch';

const SUPPORTED_BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;
/** Protocol versions Baton speaks, best first. */
export const SUPPORTED_VERSIONS = ['1.0', '0.3'] as const;

/**
 * What history keeps of a card, inline: where it came from, its digest, and the card itself. Written
 * where no artifact store takes the card (and by every delegation before 1.0 kept cards in the store).
 */
export interface CardSnapshot {
  url: string;
  sha256: string;
  fetchedAt: string;
  /** The card JSON as served (at most `limits.maxCardBytes`). */
  json: unknown;
}

/**
 * What history keeps of a card kept in the artifact store: its bytes once per digest there, only the
 * reference in each delegation (the store's reference index names every delegation that used it).
 */
export interface StoredCard {
  /**
   * The card's reference in the store, `sha256:<digest>` of the bytes as served: the agent's
   * `cardSha256` unless redaction changed them. Not called `ref`: the card keeper indexes it itself,
   * within a bound, rather than the activity boundary, which waits out a store outage.
   */
  stored: `sha256:${string}`;
  fetchedAt: string;
}

export interface FetchedCard {
  url: string;
  /** The card in the SDK's 1.0 shape (0.3 cards are translated, their interfaces marked 0.3). */
  card: AgentCard;
  sha256: string;
  /** The bytes as served, which `sha256` digests (what the artifact store keeps). */
  bytes: Buffer;
  /** The card inline, for a history when the store cannot keep it. */
  snapshot: CardSnapshot;
}

const text = (max: number) => z.string().max(max, `longer than ${max} characters`);
/** Caps on the card's free text: a card is data from a stranger, and ends up in logs and UIs. */
const CardCapsSchema = z.looseObject({
  name: text(200),
  description: text(4_000).optional(),
  version: text(100).optional(),
  supportedInterfaces: z.array(z.unknown()).max(32).optional(),
  skills: z
    .array(
      z.looseObject({
        id: text(200).optional(),
        name: text(200).optional(),
        description: text(4_000).optional(),
        tags: z.array(text(100)).max(50).optional(),
        examples: z.array(text(1_000)).max(20).optional(),
      }),
    )
    .max(100)
    .optional(),
});

/** The registry entry's `card` is either the card's URL or the agent's base URL. */
export function cardUrlOf(entry: Pick<AgentEntry, 'card'>): string {
  const url = new URL(entry.card);
  if (url.pathname.endsWith('.json')) return url.toString();
  url.pathname = `${url.pathname.replace(/\/$/, '')}/${AGENT_CARD_PATH}`;
  return url.toString();
}

const resolver = new DefaultAgentCardResolver({ legacyCompat: { enabled: true } });

async function verifySignature(agentName: string, entry: AgentEntry, card: AgentCard): Promise<void> {
  const policy = entry.signature;
  if (!policy) return;
  if (!card.signatures?.length) {
    if (policy.required)
      throw failure(FailureType.TRUST_REFUSED, `agent ${agentName}: card is unsigned, and the agent entry requires a signature`, {
        refusal: 'unsigned-card',
      });
    return;
  }
  const keys = new Map(policy.keys.map((k) => [k.kid, k.jwk]));
  const verify = verifyAgentCardSignature(async (kid) => {
    const jwk = keys.get(kid);
    if (!jwk) throw new Error(`no pinned key with kid "${kid}"`);
    return jwk as never;
  });
  try {
    // 👉 Verified in A2A's JSON form: the SDK canonicalizes what it is given as JSON, and its object
    // form would lose every oneof (securitySchemes), so a card signed as served would not verify.
    await verify(AgentCard.toJSON(card) as never);
  } catch (err) {
    throw failure(
      FailureType.TRUST_REFUSED,
      `agent ${agentName}: card signature does not verify against the pinned keys (${(err as Error).message})`,
      { refusal: 'bad-signature' },
    );
  }
}

/**
 * The card's security requirements (read from the card as served) against the entry (CONFIG_INVALID, one line, when none can be
 * met), and, for an OAuth entry without a `tokenUrl`, the token endpoint the card names, taken only
 * from an origin the entry lists (TRUST_REFUSED otherwise: no client secret goes where a card says).
 */
async function checkSecurity(agentName: string, entry: AgentEntry, json: Record<string, unknown>, lookup?: Lookup): Promise<void> {
  const why = refuseCardSecurity(agentName, entry, json);
  if (why) throw failure(FailureType.CONFIG_INVALID, why, { refusal: 'card-security' });
  if (!entry.oauth2 || entry.oauth2.tokenUrl) return;
  const origins = entry.oauth2.cardTokenOrigins;
  const { tokenUrls, discoveryUrls } = cardTokenSources(json);
  const direct = tokenUrls.find((u) => onOrigins(u, origins));
  if (direct) return rememberCardTokenUrl(agentName, direct);
  const named = [...tokenUrls];
  for (const url of discoveryUrls) {
    if (!onOrigins(url, origins)) {
      named.push(url);
      continue;
    }
    const discovered = await discoveredTokenUrl(agentName, entry, url, lookup);
    if (discovered && onOrigins(discovered, origins)) return rememberCardTokenUrl(agentName, discovered);
    if (discovered) named.push(discovered);
  }
  const at = `agents.${agentName}.oauth2`;
  throw failure(
    FailureType.TRUST_REFUSED,
    named.length
      ? `agent ${agentName}: its card names a token endpoint on ${[...new Set(named.map((u) => originOf(u) ?? u.slice(0, 100)))].join(', ')}, an origin ${at}.cardTokenOrigins does not list; no client secret is sent there: set ${at}.tokenUrl, or list the origin if it is the agent's identity provider`
      : `agent ${agentName}: ${at} sets no tokenUrl and the card names no token endpoint: set ${at}.tokenUrl`,
    { refusal: 'token-endpoint-origin' },
  );
}

/** The `token_endpoint` of an OpenID discovery document the card names (on an allowed origin). */
async function discoveredTokenUrl(agentName: string, entry: AgentEntry, url: string, lookup?: Lookup): Promise<string | undefined> {
  const fetchImpl = createGuardedFetch({ ...policyOf(entry, 256 * 1024), maxRedirects: 0, owner: `agents.${agentName}` }, { lookup });
  try {
    const res = await fetchImpl(url, { headers: { accept: 'application/json' } });
    const doc = (await res.json()) as { token_endpoint?: unknown };
    return typeof doc.token_endpoint === 'string' ? doc.token_endpoint : undefined;
  } catch (err) {
    throw toFailure(err, `agent ${agentName}: OpenID discovery ${url}`);
  }
}

export async function fetchCard(agentName: string, entry: AgentEntry, opts: { lookup?: Lookup } = {}): Promise<FetchedCard> {
  const url = cardUrlOf(entry);
  let body: Buffer;
  try {
    // Inside: a client certificate that cannot be read is the config's failure, typed as such.
    const fetchImpl = createAgentFetch(agentName, entry, {
      lookup: opts.lookup,
      maxResponseBytes: entry.limits.maxCardBytes,
      purpose: 'card',
    });
    body = await instrumentCall({ agent: agentName, binding: 'HTTP', method: 'GetAgentCard' }, async (trace) => {
      // 👉 A2A-Version 1.0: an agent that also speaks 0.3 serves its 1.0 card only when asked.
      const res = await fetchImpl(url, { headers: { ...trace, accept: 'application/json', 'A2A-Version': '1.0' } });
      if (!res.ok) {
        void res.body?.cancel();
        throw AgentHttpError.forStatus(res.status, `HTTP ${res.status} fetching ${url}`, parseRetryAfter(res.headers.get('retry-after')));
      }
      return Buffer.from(await res.arrayBuffer());
    });
  } catch (err) {
    throw toFailure(err, `agent ${agentName}: fetching card ${url}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw failure(FailureType.INVALID_AGENT_RESPONSE, `agent ${agentName}: card at ${url} is not JSON`);
  }
  const caps = CardCapsSchema.safeParse(json);
  if (!caps.success) {
    const issue = caps.error.issues[0];
    throw failure(
      FailureType.TRUST_REFUSED,
      `agent ${agentName}: card at ${url} refused: ${issue?.path.join('.') || '(card)'} ${issue?.message ?? 'is malformed'}`,
      { refusal: 'card-caps' },
    );
  }
  let card: AgentCard;
  try {
    card = resolver.normalizeAgentCard(json);
  } catch (err) {
    throw failure(
      FailureType.INVALID_AGENT_RESPONSE,
      `agent ${agentName}: card at ${url} is not a valid A2A card: ${(err as Error).message}`,
    );
  }
  await verifySignature(agentName, entry, card);
  await checkSecurity(agentName, entry, json as Record<string, unknown>, opts.lookup);
  const sha256 = createHash('sha256').update(body).digest('hex');
  return { url, card, sha256, bytes: body, snapshot: { url, sha256, fetchedAt: new Date().toISOString(), json } };
}

/** '0.3.0' and '0.3' are both 0.3: 0.3 cards carried a patch number, 1.0 ones do not. */
export function majorMinor(version: string): string {
  return version.split('.').slice(0, 2).join('.');
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * A gRPC interface's URL is a `host:port` target: its origin is taken with the card's scheme (https:
 * TLS, http: plaintext, which the entry must allow), so the same origin rule applies to it.
 */
export function grpcOrigin(target: string, cardUrl: string): string | undefined {
  if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(target)) return undefined;
  return originOf(`${new URL(cardUrl).protocol}//${target}`);
}

/**
 * Walks the card's interfaces (1.0 before 0.3; the preferred binding first within a version) and takes
 * the first JSON-RPC, HTTP+JSON or gRPC one whose URL is on the card's origin or an allowed origin.
 */
export function chooseInterface(
  agentName: string,
  fetched: Pick<FetchedCard, 'url' | 'card'>,
  entry: { binding?: AgentEntry['binding']; allowedOrigins?: string[] },
): ChosenInterface {
  const allowed = new Set([new URL(fetched.url).origin, ...(entry.allowedOrigins ?? []).map((o) => new URL(o).origin)]);
  const interfaces = fetched.card.supportedInterfaces ?? [];
  const offOrigin: string[] = [];
  for (const version of SUPPORTED_VERSIONS) {
    const candidates = interfaces.filter(
      (i) => (SUPPORTED_BINDINGS as readonly string[]).includes(i.protocolBinding) && majorMinor(i.protocolVersion) === version,
    );
    const ordered = entry.binding
      ? [...candidates.filter((i) => i.protocolBinding === entry.binding), ...candidates.filter((i) => i.protocolBinding !== entry.binding)]
      : candidates;
    for (const i of ordered) {
      const origin = i.protocolBinding === 'GRPC' ? grpcOrigin(i.url, fetched.url) : originOf(i.url);
      if (!origin || !allowed.has(origin)) {
        offOrigin.push(i.url);
        continue;
      }
      return {
        url: i.url,
        binding: i.protocolBinding as ChosenInterface['binding'],
        protocolVersion: i.protocolVersion,
        tenant: i.tenant ?? '',
      };
    }
  }
  if (offOrigin.length) {
    throw failure(
      FailureType.TRUST_REFUSED,
      `agent ${agentName}: card interfaces point off the card's origin (${[...allowed].join(', ')}): ${offOrigin.join(', ')}; add the origin to allowedOrigins if it is trusted`,
      { refusal: 'off-origin-interface' },
    );
  }
  const offered = interfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`).join(', ') || 'none';
  throw failure(
    FailureType.AGENT_REFUSED,
    `agent ${agentName}: card offers no JSON-RPC, HTTP+JSON or gRPC interface at 1.0 or 0.3 (offered: ${offered})`,
    { reason: 'NO_SUPPORTED_INTERFACE' },
  );
}
