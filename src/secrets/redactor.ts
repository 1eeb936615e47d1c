/**
 * Keeps the secrets Baton is configured with out of what an agent sends back. An agent may echo a
 * credential it was sent (in a status message, an artifact, a reply, an error text); before any of it
 * enters workflow history or a log line, every configured secret value, and its base64 forms, is
 * replaced by a marker. Agents' error texts are capped too.
 */
import { ApplicationFailure } from '@temporalio/common';
import { agentTokens } from '../a2a/agent-tokens';
import { readSecret } from './read-secret';
import type { BatonConfig } from '../config/schema';
import { MAX_NESTING } from '../shared/nesting';

export const REDACTED = '[redacted: a configured secret]';

/** Values shorter than this are not searched for: they would match ordinary words (and are weak secrets anyway). */
export const MIN_SECRET_LENGTH = 6;

/** The longest failure message kept; an agent's error text can be megabytes. */
export const MAX_FAILURE_TEXT = 2_000;

/** How long the secrets read from variables and files are reused before they are read again. */
const REREAD_MS = 5_000;

type SecretSource = { fromEnv?: string; fromFile?: string };

/** Where the config keeps secrets: agents' own auth and credentials, the push secret, the API's tokens. */
export function secretSources(config: Partial<Pick<BatonConfig, 'agents' | 'push' | 'api' | 'mcp'>>): SecretSource[] {
  const sources: SecretSource[] = [];
  for (const entry of Object.values(config.agents ?? {})) {
    if (entry.auth) sources.push(entry.auth);
    if (entry.oauth2?.clientSecret) sources.push(entry.oauth2.clientSecret);
    if (entry.apiKey) sources.push(entry.apiKey);
    sources.push(...Object.values(entry.credentials ?? {}));
  }
  if (config.push) sources.push({ fromEnv: config.push.secretFromEnv });
  for (const server of Object.values(config.mcp?.servers ?? {})) {
    if (server.auth) sources.push(server.auth);
    for (const name of server.env) sources.push({ fromEnv: name });
  }
  for (const caller of config.api?.callers ?? []) sources.push({ fromEnv: caller.tokenFromEnv });
  return sources;
}

export class Redactor {
  private cached?: { at: number; generation: number; needles: string[]; raw: Buffer[] };

  constructor(
    /** Where the secrets are; they are read when needed (a missing one is skipped). */
    private readonly sources: SecretSource[],
    /** Secrets this process obtained itself (OAuth access tokens), with a number that changes when they do. */
    private readonly live: () => { generation: number; values: readonly string[] } = () => ({ generation: 0, values: [] }),
  ) {}

  static fromConfig(config: Partial<Pick<BatonConfig, 'agents' | 'push' | 'api' | 'mcp'>>): Redactor {
    return new Redactor(secretSources(config), () => agentTokens.known());
  }

  /** The strings to look for, longest first: each secret, and its base64 and base64url forms. */
  private needles(): { needles: string[]; raw: Buffer[] } {
    const live = this.live();
    if (this.cached && Date.now() - this.cached.at < REREAD_MS && this.cached.generation === live.generation) return this.cached;
    const values = new Set<string>(live.values);
    for (const source of this.sources) {
      try {
        const value = readSecret(source, 'secret');
        if (value.length >= MIN_SECRET_LENGTH) values.add(value);
      } catch {
        // Not set here: nothing of it can be echoed by this worker.
      }
    }
    const needles = new Set<string>();
    for (const v of values)
      for (const form of [v, Buffer.from(v).toString('base64'), Buffer.from(v).toString('base64url')]) needles.add(form);
    this.cached = {
      at: Date.now(),
      generation: live.generation,
      needles: [...needles].sort((a, b) => b.length - a.length),
      raw: [...values].map((v) => Buffer.from(v)),
    };
    return this.cached;
  }

  /** `bytes` with every secret (as bytes, or in its base64 forms) replaced by the marker's bytes; the same Buffer when none was there. */
  bytes(bytes: Buffer): Buffer {
    const { needles } = this.needles();
    let out = bytes;
    for (const needle of needles) out = replaceBytes(out, Buffer.from(needle, 'utf8'), Buffer.from(REDACTED));
    return out;
  }

  /**
   * Whether any secret (as bytes, or in its base64 forms) is in `chunks`, read once piece by piece: a
   * secret across two pieces is found too, and nothing larger than a piece is held.
   */
  async foundIn(chunks: AsyncIterable<Buffer>): Promise<boolean> {
    const needles = this.needles().needles.map((n) => Buffer.from(n, 'utf8'));
    if (!needles.length) return false;
    const overlap = Math.max(...needles.map((n) => n.length)) - 1;
    let tail = Buffer.alloc(0);
    for await (const chunk of chunks) {
      const window = Buffer.concat([tail, chunk]);
      if (needles.some((n) => window.includes(n))) return true;
      tail = window.subarray(Math.max(0, window.length - overlap));
    }
    return false;
  }

  /** `text` with every secret replaced by the marker. */
  text(text: string): string {
    let out = text;
    for (const needle of this.needles().needles) if (out.includes(needle)) out = out.split(needle).join(REDACTED);
    return out;
  }

  /**
   * `value` with every secret in its strings replaced, inline file bytes (`raw` parts, base64) included;
   * an artifact whose parts changed is marked `redacted`. `changed` says whether anything was.
   */
  value<T>(value: T): { value: T; changed: boolean } {
    const { needles, raw } = this.needles();
    if (!needles.length) return { value, changed: false };
    let changes = 0;
    const walk = (v: unknown, depth: number): unknown => {
      if (typeof v === 'string') {
        const out = this.text(v);
        if (out !== v) changes += 1;
        return out;
      }
      if (v === null || typeof v !== 'object') return v;
      // Deeper than anything the boundaries let in (MAX_NESTING): not checked, so not kept.
      if (depth > MAX_REDACTION_DEPTH) {
        changes += 1;
        return NOT_CHECKED;
      }
      if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
      const before = changes;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v))
        out[k] = k === 'raw' && typeof x === 'string' ? this.rawBytes(x, raw, () => (changes += 1)) : walk(x, depth + 1);
      // An artifact record: its digest and size still describe what the agent sent.
      if (changes > before && 'artifactId' in out && 'sha256' in out) out.redacted = true;
      return out;
    };
    const out = walk(value, 0) as T;
    return { value: out, changed: changes > 0 };
  }

  /** Base64 file bytes with every secret in them replaced by the marker's bytes. */
  private rawBytes(base64: string, secrets: Buffer[], onChange: () => void): string {
    let bytes: Buffer = Buffer.from(base64, 'base64');
    for (const secret of secrets) {
      const replaced = replaceBytes(bytes, secret, Buffer.from(REDACTED));
      if (replaced !== bytes) onChange();
      bytes = replaced;
    }
    return bytes.toString('base64');
  }

  /** A failure as history may keep it: the message capped and redacted, the details redacted. */
  failure(err: unknown): unknown {
    if (!(err instanceof Error)) return err;
    const message = this.text(capped(err.message));
    if (err instanceof ApplicationFailure) {
      const details = this.value(err.details);
      if (message === err.message && !details.changed) return err;
      return ApplicationFailure.create({
        type: err.type ?? undefined,
        message,
        nonRetryable: err.nonRetryable ?? false,
        details: details.value ?? undefined,
        ...(err.nextRetryDelay !== undefined && err.nextRetryDelay !== null ? { nextRetryDelay: err.nextRetryDelay } : {}),
        ...(err.category ? { category: err.category } : {}),
      });
    }
    if (message !== err.message) {
      err.message = message;
      err.stack = `${err.name}: ${message}`;
    }
    return err;
  }
}

/** How deep `value` walks: well past MAX_NESTING, which agents' and callers' data is held to where it enters. */
const MAX_REDACTION_DEPTH = 4 * MAX_NESTING;

/** What stands for data nested deeper than redaction walks. */
export const NOT_CHECKED = '[not kept: nested too deep to check for secrets]';

/** `bytes` with every `needle` replaced by `marker`; the same Buffer when there is none. */
function replaceBytes(bytes: Buffer, needle: Buffer, marker: Buffer): Buffer {
  if (!needle.length || !bytes.includes(needle)) return bytes;
  const pieces: Buffer[] = [];
  let at = 0;
  for (let i = bytes.indexOf(needle); i >= 0; i = bytes.indexOf(needle, at)) {
    pieces.push(bytes.subarray(at, i), marker);
    at = i + needle.length;
  }
  pieces.push(bytes.subarray(at));
  return Buffer.concat(pieces);
}

/** A message cut to `MAX_FAILURE_TEXT` characters, saying how much was left out. */
export function capped(text: string): string {
  return text.length <= MAX_FAILURE_TEXT
    ? text
    : `${text.slice(0, MAX_FAILURE_TEXT)}… (${text.length - MAX_FAILURE_TEXT} more characters not kept)`;
}
