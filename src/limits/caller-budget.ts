/**
 * One budget per caller, across every surface of a process (the HTTP API, the served agents over HTTP
 * and gRPC, MCP, the codec server) and, with a shared store, across replicas: requests (each costs one,
 * and what it fans out to is charged after), work started (delegations; a graph's nodes), open
 * streams and MCP sessions; and, before anyone is known, failed sign-ins per source address. The
 * model, its defaults and why are in docs/resource-model.md.
 */
import ipaddr from 'ipaddr.js';
import { BatonError } from '../shared/baton-error';
import type { Caller } from '../shared/delegation-types';
import type { BudgetStore, Lease } from './budget-store';
import { retryAfterSeconds, type BucketLimit, type Taken } from './token-bucket';

/** Refused for now: the caller should wait `retryAfterSeconds` (each surface says so its own way: Retry-After, RESOURCE_EXHAUSTED). */
export class RateLimitedError extends BatonError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('RateLimited', message);
  }
}

export interface CallerLimits {
  /** Requests, each costing one plus what it fans out to (`api.rateLimit`). */
  requests: BucketLimit;
  /** Delegations started; a graph costs its nodes (`api.limits.workStarted`). */
  work: BucketLimit;
  /** Requests with no known token, per source address (`api.limits.unknownTokens`). */
  unknownTokens: BucketLimit;
  /** Streams held open at once (`api.limits.streams`). */
  streams: number;
  /** MCP sessions held open at once (`api.limits.mcpSessions`). */
  sessions: number;
}

/** A caller's key in the store: tenant and user, unambiguous whatever they contain. */
const callerKey = (c: Caller): string => `caller:${c.tenant.length}:${c.tenant}:${c.user}`;

/**
 * A source address as the unknown-token budget counts it: an IPv4 address (also written as IPv6), or
 * an IPv6 address's /64, which one host usually has whole.
 */
export function sourceOf(address: string | undefined): string {
  if (!address) return 'unknown';
  try {
    let ip = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
    if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
    if (ip.kind() === 'ipv4') return ip.toString();
    const parts = (ip as ipaddr.IPv6).parts.slice(0, 4);
    return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
  } catch {
    return address.slice(0, 100);
  }
}

export class CallerBudget {
  constructor(
    private readonly store: BudgetStore,
    readonly limits: CallerLimits,
  ) {}

  /** Admits one request of `caller`, or throws RateLimitedError. */
  admit(caller: Caller): Promise<void> {
    return this.request(callerKey(caller));
  }

  /** Admits one request of something that is not a caller (a codec server token, by its digest), or throws. */
  admitKey(key: string): Promise<void> {
    return this.request(`key:${key}`);
  }

  private async request(key: string): Promise<void> {
    const taken = await this.store.take('requests', key, 1);
    if (!taken.ok) throw this.refusal(taken, `more than ${this.said(this.limits.requests, 'requests')}`);
  }

  /**
   * Charges `reads` more requests' worth for what one request fanned out to (the delegations an inbox
   * read, the tasks a page listed); the caller's next requests wait it off.
   */
  async fanOut(caller: Caller, reads: number): Promise<void> {
    if (reads > 0) await this.store.charge('requests', callerKey(caller), reads);
  }

  /** Takes `count` delegations from the caller's work allowance (`what` names them for the refusal), or throws. */
  async startWork(caller: Caller, count: number, what = count === 1 ? 'a delegation' : `${count} delegations`): Promise<void> {
    const { work } = this.limits;
    if (count > work.burst)
      throw new BatonError(
        'InvalidRequest',
        `starting ${what} is more than the ${work.burst} one caller may start at once (api.limits.workStarted.burst): split the work, or ask the operator to raise it`,
      );
    const taken = await this.store.take('work', callerKey(caller), count);
    if (!taken.ok) throw this.refusal(taken, `starting ${what} goes past ${this.said(work, 'delegations')} (api.limits.workStarted)`);
  }

  /** Holds one of the caller's streams until the lease is released, or throws RateLimitedError. */
  async openStream(caller: Caller): Promise<Lease> {
    const lease = await this.store.lease('streams', callerKey(caller), this.limits.streams);
    if (!lease)
      throw new RateLimitedError(
        `you hold ${this.limits.streams} open streams or waiting requests already (api.limits.streams): close one, then try again`,
        5,
      );
    return lease;
  }

  /** Holds one of the caller's MCP sessions until released, or throws RateLimitedError. */
  async openSession(caller: Caller): Promise<Lease> {
    const lease = await this.store.lease('sessions', callerKey(caller), this.limits.sessions);
    if (!lease)
      throw new RateLimitedError(
        `you hold ${this.limits.sessions} MCP sessions already (api.limits.mcpSessions): end one (DELETE /mcp with its Mcp-Session-Id), or wait for an idle one to close`,
        30,
      );
    return lease;
  }

  /**
   * Throws RateLimitedError while the source address has used up its allowance of unknown tokens:
   * then every request from it is refused before its token is looked at, so guessing stops there.
   */
  async checkSource(address: string | undefined): Promise<void> {
    const held = await this.store.holds('unknown-tokens', `source:${sourceOf(address)}`, 1);
    if (!held.ok) throw this.refusal(held, `too many requests with an unknown token from your address (api.limits.unknownTokens)`);
  }

  /** Counts one request with an unknown (or no) token from `address`. */
  unknownToken(address: string | undefined): Promise<void> {
    return this.store.charge('unknown-tokens', `source:${sourceOf(address)}`, 1);
  }

  close(): Promise<void> {
    return this.store.close();
  }

  private said(limit: BucketLimit, units: string): string {
    return `${limit.perMinute} ${units} a minute (bursts of ${limit.burst})`;
  }

  private refusal(taken: Extract<Taken, { ok: false }>, what: string): RateLimitedError {
    const seconds = retryAfterSeconds(taken.retryAfterMs);
    return new RateLimitedError(`${what}; try again in ${seconds} s`, seconds);
  }
}
