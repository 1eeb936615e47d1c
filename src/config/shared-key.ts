/**
 * Secrets every replica of `baton ui` and `baton serve` must share (the key served task ids are made
 * with, the key MCP session ids are sealed with), read from an environment variable. Unset, a process
 * makes its own: right for one process that never restarts, and said once at start.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { ConfigError } from './config-error';

/** Which key: the config setting that names its variable, and what a missing shared key costs. */
export interface SharedKeyUse {
  /** The setting, for messages: `serve.taskIdKeyFromEnv`. */
  setting: string;
  /** What a guessable key would allow, for the too-short message. */
  guessable: string;
  /** What an unset key costs, for the warning. */
  unshared: string;
}

/** The minimum length of a shared key, in characters. */
export const MIN_SHARED_KEY_CHARS = 32;

/** What is wrong with the key `variable` holds, when it is set: shorter than 32 characters. */
export function sharedKeyProblem(variable: string, use: SharedKeyUse, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[variable];
  return value !== undefined && value.length < MIN_SHARED_KEY_CHARS
    ? `${use.setting}: ${variable} must hold at least ${MIN_SHARED_KEY_CHARS} characters (${use.guessable})`
    : undefined;
}

/** The key `variable` holds; unset, a key of this process alone, with a warning saying what that costs. */
export function sharedKey(variable: string, use: SharedKeyUse, logger: Logger, env: NodeJS.ProcessEnv = process.env): Buffer {
  const problem = sharedKeyProblem(variable, use, env);
  if (problem) throw new ConfigError(problem);
  const value = env[variable];
  if (value) return Buffer.from(value, 'utf8');
  logger.warn({ variable }, `${variable} is not set: ${use.unshared}; set it to the same secret on every replica`);
  return randomBytes(32);
}
