/**
 * Agent card resolution under a baseline trust policy: http only when allowed, a size cap, interface
 * URLs on the card's own origin, and a sha256 of the exact bytes for audit.
 */
import { createHash } from 'node:crypto';
import { AGENT_CARD_PATH, type AgentCard } from '@a2a-js/sdk';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import type { AgentEntry } from '../config/schema';
import type { ChosenInterface } from '../shared/delegation-types';
import { FailureType } from '../shared/failure-types';
import { failure, toFailure } from './errors';

/** Cards larger than this are refused. */
export const MAX_CARD_BYTES = 256 * 1024;
const CARD_TIMEOUT_MS = 10_000;
const SUPPORTED_BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const;

export interface FetchedCard {
  url: string;
  card: AgentCard;
  sha256: string;
}

/** The registry entry's `card` is either the card's URL or the agent's base URL. */
export function cardUrlOf(entry: Pick<AgentEntry, 'card'>): string {
  const url = new URL(entry.card);
  if (url.pathname.endsWith('.json')) return url.toString();
  url.pathname = `${url.pathname.replace(/\/$/, '')}/${AGENT_CARD_PATH}`;
  return url.toString();
}

export async function fetchCard(agentName: string, entry: AgentEntry, fetchImpl: typeof fetch = fetch): Promise<FetchedCard> {
  const url = cardUrlOf(entry);
  const protocol = new URL(url).protocol;
  if (protocol !== 'https:' && !(protocol === 'http:' && entry.allowHttp)) {
    throw failure(FailureType.TRUST_REFUSED, `agent ${agentName}: card URL ${url} is not https (set allowHttp: true only for loopback or dev agents)`);
  }
  let body: Buffer;
  try {
    const res = await fetchImpl(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(CARD_TIMEOUT_MS), redirect: 'error' });
    if (!res.ok) throw new Error(`HTTP ${res.status} fetching card ${url}`);
    const declared = Number(res.headers.get('content-length') ?? '0');
    if (declared > MAX_CARD_BYTES) throw failure(FailureType.TRUST_REFUSED, `agent ${agentName}: card is ${declared} bytes, over the ${MAX_CARD_BYTES}-byte cap`);
    body = Buffer.from(await res.arrayBuffer());
  } catch (err) {
    throw toFailure(err, `agent ${agentName}: fetching card`);
  }
  if (body.length > MAX_CARD_BYTES) throw failure(FailureType.TRUST_REFUSED, `agent ${agentName}: card is ${body.length} bytes, over the ${MAX_CARD_BYTES}-byte cap`);
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw failure(FailureType.INVALID_AGENT_RESPONSE, `agent ${agentName}: card at ${url} is not JSON`);
  }
  let card: AgentCard;
  try {
    card = new DefaultAgentCardResolver().normalizeAgentCard(json);
  } catch (err) {
    throw failure(FailureType.INVALID_AGENT_RESPONSE, `agent ${agentName}: card at ${url} is not a valid A2A card: ${(err as Error).message}`);
  }
  return { url, card, sha256: createHash('sha256').update(body).digest('hex') };
}

/**
 * Walks the card's interfaces in order (the preferred binding first, when configured) and takes the
 * first 1.0 JSON-RPC or HTTP+JSON one whose URL is on the card's own origin.
 */
export function chooseInterface(agentName: string, fetched: FetchedCard, preferred?: AgentEntry['binding']): ChosenInterface {
  const origin = new URL(fetched.url).origin;
  const candidates = (fetched.card.supportedInterfaces ?? []).filter(
    (i) => (SUPPORTED_BINDINGS as readonly string[]).includes(i.protocolBinding) && i.protocolVersion === '1.0',
  );
  const ordered = preferred ? [...candidates.filter((i) => i.protocolBinding === preferred), ...candidates.filter((i) => i.protocolBinding !== preferred)] : candidates;
  const offOrigin: string[] = [];
  for (const i of ordered) {
    let ifaceOrigin: string;
    try {
      ifaceOrigin = new URL(i.url).origin;
    } catch {
      continue;
    }
    if (ifaceOrigin !== origin) {
      offOrigin.push(i.url);
      continue;
    }
    return { url: i.url, binding: i.protocolBinding as ChosenInterface['binding'], protocolVersion: i.protocolVersion, tenant: i.tenant ?? '' };
  }
  if (offOrigin.length) {
    throw failure(FailureType.TRUST_REFUSED, `agent ${agentName}: card interfaces point off the card's origin ${origin}: ${offOrigin.join(', ')}`);
  }
  throw failure(FailureType.AGENT_REFUSED, `agent ${agentName}: card offers no A2A 1.0 JSON-RPC or HTTP+JSON interface`);
}
