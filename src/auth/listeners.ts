/**
 * Who may call a listener Baton opens (the web app and API, the served agents, their gRPC port):
 * the configured callers, or on loopback only, one generated token for the config's caller.
 */
import { ConfigError } from '../config/config-error';
import type { BatonConfig } from '../config/schema';
import { CallerTokens } from './caller-tokens';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export const isLoopback = (host: string): boolean => LOOPBACK.has(host);

/**
 * Who may call a server that listens on `host`: the callers of `api.callers`, or, when none are
 * configured, one fresh token for the config's caller (`generated`), and then only on loopback.
 */
export function callerTokensFor(
  config: BatonConfig,
  host: string,
  hostField: string,
  /** The token to give the config's caller when none are configured. Default: a fresh random one. */
  devToken?: string,
): { tokens: CallerTokens; generated?: string } {
  if (config.api.callers.length) {
    try {
      return { tokens: CallerTokens.fromConfig(config.api) };
    } catch (err) {
      throw new ConfigError((err as Error).message);
    }
  }
  if (!LOOPBACK.has(host))
    throw new ConfigError(
      `${hostField} is ${host}, but no api.callers are configured: list the callers and their tokens (api.callers) before listening beyond loopback`,
    );
  const { tokens, token } = CallerTokens.single(config.caller, devToken);
  return { tokens, generated: token };
}
