/**
 * Finds, reads and validates the config file. Every error names the file, the field and the fix.
 */
import { TENANT_NAME } from '../shared/ids';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { resolveTemporalTarget } from './temporal-target';
import { ConfigError } from './config-error';
import { expandEnv, MissingEnvError } from './env-expand';
import { renameDeprecatedFields } from './renamed-fields';
import { ConfigSchema, type BatonConfig } from './schema';

export { ConfigError };

export interface LoadedConfig {
  config: BatonConfig;
  /** The file it came from; undefined when built-in defaults were used. */
  path?: string;
  /** What still works but should change (renamed fields), each naming the field and the fix. */
  warnings: string[];
}

/** Formats zod issues as `field.path: problem and fix`. */
export function describeIssues(error: z.ZodError, input?: unknown): string[] {
  const valueAt = (path: PropertyKey[]): unknown =>
    path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined), input);
  return error.issues.map((issue) => {
    const field = issue.path.length ? issue.path.join('.') : '(top level)';
    if (issue.code === 'unrecognized_keys') {
      return `${field}: unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}: remove it or fix its spelling (fields are listed in docs/configuration.md)`;
    }
    if (issue.code === 'invalid_key') {
      // A name under agents, policies, mcp.servers…: say which name, and the rule it breaks.
      const name = String(issue.path.at(-1));
      const rule = issue.issues.map((i) => i.message).join('; ');
      return `${issue.path.slice(0, -1).join('.') || '(top level)'}: the name "${name}" cannot be used: ${rule}`;
    }
    if (issue.code === 'invalid_value' && 'values' in issue) {
      return `${field}: must be one of ${(issue.values as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    }
    if (issue.code === 'invalid_type') {
      const value = valueAt(issue.path);
      // YAML reads an empty section (`agents:` with nothing under it) as null.
      const got = value === null ? 'nothing: the section is empty' : Array.isArray(value) ? 'a list' : `a ${typeof value}`;
      return `${field}: ${value === undefined ? 'is required' : `must be a ${issue.expected} (got ${got})`}`;
    }
    return `${field}: ${issue.message}`;
  });
}

/** Warnings already printed by this process: each is said once, however often the config is read. */
const reported = new Set<string>();

function report(source: string, warnings: string[]): void {
  for (const warning of warnings) {
    const line = `baton: warning: ${source}: ${warning}`;
    if (reported.has(line)) continue;
    reported.add(line);
    process.stderr.write(`${line}\n`);
  }
}

/** A config parsed before (given again, as withBaton allows) carries its resolved target: resolved anew. */
function withoutTarget(raw: unknown): unknown {
  const temporal = (raw as { temporal?: Record<string, unknown> })?.temporal;
  if (!temporal || typeof temporal !== 'object' || !('target' in temporal)) return raw;
  const { target: _resolved, ...rest } = temporal;
  return { ...(raw as object), temporal: rest };
}

/** Validates a config; renamed fields are read under their new names, with a warning (see `parseConfig`). */
export function parseConfigWithWarnings(raw: unknown, source = 'config'): { config: BatonConfig; warnings: string[] } {
  const renamed = renameDeprecatedFields(withoutTarget(raw ?? {}));
  const result = ConfigSchema.safeParse(renamed.raw);
  if (!result.success) throw new ConfigError(`${source} is not valid:`, describeIssues(result.error, renamed.raw));
  const explicit = ((renamed.raw as { temporal?: { namespace?: string } } | undefined)?.temporal ?? {}) as { namespace?: string };
  return { config: applyEnv(result.data, explicit.namespace !== undefined), warnings: renamed.warnings };
}

/** Validates a config; a warning (a renamed field) is printed once to stderr. */
export function parseConfig(raw: unknown, source = 'config'): BatonConfig {
  const { config, warnings } = parseConfigWithWarnings(raw, source);
  report(source, warnings);
  return config;
}

/**
 * Address and namespace as `resolveTemporalTarget` decides them (the environment, then the file, then
 * a profile of Temporal's own config file); `BATON_TENANT` and `BATON_USER` override the caller.
 */
function applyEnv(config: BatonConfig, namespaceGiven: boolean): BatonConfig {
  const env = process.env;
  const target = resolveTemporalTarget({ ...config.temporal, ...(namespaceGiven ? {} : { namespace: undefined }) }, env);
  return {
    ...config,
    temporal: {
      ...config.temporal,
      ...(target.address ? { address: target.address } : {}),
      namespace: target.namespace,
      target,
    },
    caller: { tenant: tenantFromEnv(env.BATON_TENANT) ?? config.caller.tenant, user: env.BATON_USER || config.caller.user },
  };
}

/** `BATON_TENANT`, when set: a tenant name as the config's (it prefixes ids the caller chooses). */
function tenantFromEnv(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (!TENANT_NAME.test(value))
    throw new ConfigError(
      `BATON_TENANT ${JSON.stringify(value)}: use letters, digits and . _ @ - (at most 100, starting with a letter or digit)`,
    );
  return value;
}

/**
 * Loads `explicitPath`, else `$BATON_CONFIG`, else `./baton.config.yaml`; with none of them present,
 * the built-in defaults (no agents). Warnings are printed once to stderr unless `quiet` (the caller
 * shows `warnings` itself).
 */
export function loadConfig(explicitPath?: string, opts: { quiet?: boolean } = {}): LoadedConfig {
  const chosen = explicitPath ?? process.env.BATON_CONFIG;
  const path = chosen ? resolve(chosen) : resolve('baton.config.yaml');
  if (!existsSync(path)) {
    if (chosen) throw new ConfigError(`config file ${path} does not exist (set by ${explicitPath ? '--config' : 'BATON_CONFIG'})`);
    return { config: parseConfig({}, 'built-in defaults'), warnings: [] };
  }
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`${path} is not valid YAML: ${(err as Error).message}`);
  }
  try {
    raw = expandEnv(raw);
  } catch (err) {
    if (err instanceof MissingEnvError) throw new ConfigError(`${path} names environment variables that are not set:`, err.problems);
    throw err;
  }
  const { config, warnings } = parseConfigWithWarnings(raw, path);
  if (!opts.quiet) report(path, warnings);
  return { config, path, warnings };
}
