/**
 * MCP session ids that carry their session (decision 0037): who opened it and the handshake it opened
 * with, sealed with a key every `baton ui` shares (`api.mcpSessionKeyFromEnv`). A `baton ui` that does
 * not hold the session (restarted, or another replica) opens the id, checks the seal and the caller,
 * and takes the session up again, so a host goes on without initializing again.
 *
 * `<payload>.<mac>`, both base64url: visible ASCII, as MCP requires of a session id. The payload is
 * not secret (its caller already knows it); the seal makes it unforgeable.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SharedKeyUse } from '../config/shared-key';
import type { Caller } from '../shared/delegation-types';

/** The session key's use (`sharedKey(variable, MCP_SESSION_KEY, …)`), for its messages. */
export const MCP_SESSION_KEY: SharedKeyUse = {
  setting: 'api.mcpSessionKeyFromEnv',
  guessable: 'a guessable key lets anyone forge session ids',
  unshared:
    'MCP session ids are sealed for this process alone, so when it restarts (or a request reaches another replica) every host must initialize again',
};

/** What a session id carries. */
export interface SessionSeal {
  caller: Caller;
  /** The protocol version the host asked for in its initialize. */
  protocolVersion: string;
  /** The host's name and version, as its initialize gave them (cut to 100 characters each). */
  client: { name: string; version: string };
  /** Unique per session, so two sessions of one caller have different ids. */
  nonce: string;
}

/** Longest session id accepted for opening: far above what `sealSessionId` makes, far below a header's limit. */
const MAX_ID_CHARS = 2_000;
const MAC_BYTES = 18;

const mac = (key: Buffer, payload: string): Buffer =>
  createHmac('sha256', key).update(`mcp-session.${payload}`).digest().subarray(0, MAC_BYTES);

const cut = (s: unknown): string => (typeof s === 'string' ? s.slice(0, 100) : '');

/** A session id for `seal`, sealed with `key`. */
export function sealSessionId(key: Buffer, seal: SessionSeal): string {
  const payload = Buffer.from(
    JSON.stringify({
      v: 1,
      t: seal.caller.tenant,
      u: seal.caller.user,
      p: cut(seal.protocolVersion),
      c: [cut(seal.client.name), cut(seal.client.version)],
      n: seal.nonce,
    }),
  ).toString('base64url');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

/** What `id` carries, when `key` sealed it; undefined for anything else (forged, cut, another key's). */
export function openSessionId(key: Buffer, id: string): SessionSeal | undefined {
  if (id.length > MAX_ID_CHARS) return undefined;
  const [payload, given, extra] = id.split('.');
  if (!payload || !given || extra !== undefined) return undefined;
  const expected = mac(key, payload);
  const presented = Buffer.from(given, 'base64url');
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
  try {
    const p = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const [name, version] = Array.isArray(p.c) ? p.c : [];
    if (p.v !== 1 || typeof p.t !== 'string' || typeof p.u !== 'string' || typeof p.p !== 'string' || typeof p.n !== 'string')
      return undefined;
    return { caller: { tenant: p.t, user: p.u }, protocolVersion: p.p, client: { name: cut(name), version: cut(version) }, nonce: p.n };
  } catch {
    return undefined;
  }
}
