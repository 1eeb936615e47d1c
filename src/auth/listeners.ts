/**
 * Who may call a listener Baton opens (the web app and API, the served agents, their gRPC port):
 * the configured callers and the tokens of the configured issuers, or on loopback only, one generated
 * token for the config's caller.
 */
import { ConfigError } from '../config/config-error';
import type { BatonConfig } from '../config/schema';
import { CallerTokens } from './caller-tokens';
import { Callers } from './callers';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export const isLoopback = (host: string): boolean => LOOPBACK.has(host);

/**
 * Whether anyone is configured to call (static callers, issuers, or operators signing in with OpenID
 * Connect): else only loopback, with a generated token.
 */
export const hasConfiguredCallers = (config: Pick<BatonConfig, 'api'>): boolean =>
  config.api.callers.length > 0 || config.api.issuers.length > 0 || config.api.signIn !== undefined;

/**
 * Who may call a server that listens on `host`: the callers of `api.callers` and the JWTs of
 * `api.issuers`, or, when neither is configured, one fresh token for the config's caller
 * (`generated`), and then only on loopback.
 */
export function callerTokensFor(
  config: BatonConfig,
  host: string,
  hostField: string,
  /** The token to give the config's caller when none are configured. Default: a fresh random one. */
  devToken?: string,
  /** Hears why a JWT was refused, for the server's log. */
  onRefusedJwt?: (why: string) => void,
): { tokens: CallerTokens; callers: Callers; generated?: string } {
  if (hasConfiguredCallers(config)) {
    let tokens: CallerTokens;
    try {
      tokens = CallerTokens.fromConfig(config.api);
    } catch (err) {
      throw new ConfigError((err as Error).message);
    }
    return { tokens, callers: Callers.fromConfig(config, tokens, onRefusedJwt) };
  }
  if (!LOOPBACK.has(host))
    throw new ConfigError(
      `${hostField} is ${host}, but no api.callers, api.issuers or api.signIn are configured: list the callers (api.callers), the identity providers whose tokens they bring (api.issuers) or how operators sign in (api.signIn) before listening beyond loopback`,
    );
  const { tokens, token } = CallerTokens.single(config.caller, devToken);
  return { tokens, callers: new Callers(tokens), generated: token };
}
