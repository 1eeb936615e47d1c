/**
 * Which Temporal to connect to, and how: address, namespace, TLS and API key, from the three places
 * Temporal users configure them, with one precedence rule, the `temporal` CLI's:
 *
 *   environment (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*)
 *   > baton.config.yaml (`temporal.*`)
 *   > a profile of Temporal's own config file (temporal.toml: TEMPORAL_PROFILE or `temporal.profile`,
 *     else `default`; TEMPORAL_CONFIG_FILE or the platform's default path)
 *   > defaults (`baton dev`'s address, namespace `default`, no TLS).
 *
 * This module says where each setting comes from and never reads a secret: certificate, key and API
 * key are read when connecting (`connect.ts`), and only their source is ever printed.
 */
import { homedir, platform } from 'node:os';
import { join } from 'node:path';
import { loadClientConfigProfile, type ClientConfigProfile } from '@temporalio/envconfig';
import { ConfigError } from './config-error';

/** Bytes from a file or given inline (a profile or a variable may hold PEM data itself). */
export type Material = { path: string; from: string } | { data: string; from: string };

export interface TemporalTarget {
  address?: string;
  namespace: string;
  /** Where `address` and `namespace` were set. */
  from: { address: string; namespace: string };
  /** The profile read from Temporal's config file, when one was. */
  profile?: string;
  /** TLS: off, or on with what to present and trust (server CA, client certificate and key, server name). */
  tls: false | { serverCa?: Material; clientCert?: Material; clientKey?: Material; serverName?: string; from: string };
  /** The API key's source: a variable to read when connecting, or a profile's inline key. */
  apiKey?: { env: string; from: string } | { data: string; from: string };
}

/** The `temporal` section of baton.config.yaml, as far as the connection goes. */
export interface TemporalSection {
  address?: string;
  namespace?: string;
  profile?: string;
  tls?: { serverCaFile?: string; clientCertFile?: string; clientKeyFile?: string; serverName?: string; disabled?: boolean };
  apiKeyFromEnv?: string;
  /** The target as the config's loader resolved it (with each setting's source); used as it is when present. */
  target?: TemporalTarget;
}

type TomlMaterial = ClientConfigProfile['tls'] extends infer T ? (T extends { clientCert?: infer M } ? M : never) : never;

function fromProfile(source: TomlMaterial | undefined, where: string): Material | undefined {
  if (!source) return undefined;
  if ('path' in source) return { path: source.path, from: where };
  const data = typeof source.data === 'string' ? source.data : Buffer.from(source.data).toString('utf8');
  return { data, from: where };
}

/** Where Temporal's config file is looked for (as its own loader does on Linux and macOS). */
export function temporalConfigFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TEMPORAL_CONFIG_FILE) return env.TEMPORAL_CONFIG_FILE;
  const base =
    platform() === 'darwin' ? join(homedir(), 'Library', 'Application Support') : env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'temporalio', 'temporal.toml');
}

function fileProfile(section: TemporalSection, env: NodeJS.ProcessEnv): { profile: ClientConfigProfile; name?: string; where: string } {
  const name = env.TEMPORAL_PROFILE || section.profile;
  const file = temporalConfigFile(env);
  const where = `profile ${name ?? 'default'} of ${file}`;
  try {
    const profile = loadClientConfigProfile({
      disableEnv: true,
      ...(name ? { profile: name } : {}),
      overrideEnvVars: { ...env } as Record<string, string>,
    });
    return { profile, ...(name || Object.keys(profile).length ? { name: name ?? 'default' } : {}), where };
  } catch (err) {
    const said = (err as Error).message;
    const by = env.TEMPORAL_PROFILE ? 'TEMPORAL_PROFILE' : 'temporal.profile in the config';
    if (/not found in config data/.test(said)) {
      throw new ConfigError(`Temporal profile "${name}" (${by}) is not in ${file}: name a profile it has, or unset ${by}`);
    }
    throw new ConfigError(`Temporal's config file ${file} cannot be read: ${said}`);
  }
}

const bool = (v: string | undefined): boolean | undefined =>
  v === undefined || v === '' ? undefined : ['1', 'true', 'yes', 'on'].includes(v.toLowerCase());

/** Where to connect and with what, each setting with its source; nothing secret is read. */
export function resolveTemporalTarget(section: TemporalSection, env: NodeJS.ProcessEnv = process.env): TemporalTarget {
  if (section.target) return section.target;
  const file = fileProfile(section, env);
  const p = file.profile;
  const pick = <T>(...choices: [T | undefined, string][]): [T, string] | undefined =>
    choices.find(([v]) => v !== undefined && v !== '') as [T, string] | undefined;

  const address = pick<string>(
    [env.TEMPORAL_ADDRESS, 'TEMPORAL_ADDRESS'],
    [section.address, 'temporal.address in the config'],
    [p.address, file.where],
  );
  const namespace = pick<string>(
    [env.TEMPORAL_NAMESPACE, 'TEMPORAL_NAMESPACE'],
    [section.namespace, 'temporal.namespace in the config'],
    [p.namespace, file.where],
  ) ?? ['default', 'the default'];

  const t = section.tls ?? {};
  const material = (
    envPath: string,
    envData: string,
    yaml: string | undefined,
    yamlField: string,
    toml: TomlMaterial | undefined,
  ): Material | undefined => {
    if (env[envPath]) return { path: env[envPath] as string, from: envPath };
    if (env[envData]) return { data: env[envData] as string, from: envData };
    if (yaml) return { path: yaml, from: `temporal.tls.${yamlField} in the config` };
    return fromProfile(toml, file.where);
  };
  const serverCa = material(
    'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
    'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
    t.serverCaFile,
    'serverCaFile',
    p.tls?.serverCACert,
  );
  const clientCert = material(
    'TEMPORAL_TLS_CLIENT_CERT_PATH',
    'TEMPORAL_TLS_CLIENT_CERT_DATA',
    t.clientCertFile,
    'clientCertFile',
    p.tls?.clientCert,
  );
  const clientKey = material(
    'TEMPORAL_TLS_CLIENT_KEY_PATH',
    'TEMPORAL_TLS_CLIENT_KEY_DATA',
    t.clientKeyFile,
    'clientKeyFile',
    p.tls?.clientKey,
  );
  if (Boolean(clientCert) !== Boolean(clientKey)) {
    const [has, lacks] = clientCert ? [clientCert, 'client key'] : [clientKey as Material, 'client certificate'];
    throw new ConfigError(`a TLS client ${clientCert ? 'certificate' : 'key'} is set (${has.from}) but no ${lacks}: set both, or neither`);
  }
  const serverName = pick<string>([env.TEMPORAL_TLS_SERVER_NAME, ''], [t.serverName, ''], [p.tls?.serverName, '']);

  let apiKey: TemporalTarget['apiKey'];
  if (env.TEMPORAL_API_KEY) apiKey = { env: 'TEMPORAL_API_KEY', from: 'TEMPORAL_API_KEY' };
  else if (section.apiKeyFromEnv) {
    if (!env[section.apiKeyFromEnv]) {
      throw new ConfigError(
        `temporal.apiKeyFromEnv names ${section.apiKeyFromEnv}, which is not set: set it to the API key, or remove the field`,
      );
    }
    apiKey = { env: section.apiKeyFromEnv, from: `${section.apiKeyFromEnv} (temporal.apiKeyFromEnv in the config)` };
  } else if (p.apiKey) apiKey = { data: p.apiKey, from: file.where };

  // TLS is on when anything asks for it, or with an API key (as Temporal's own loader decides); an explicit "off" wins.
  const on = pick<boolean>(
    [bool(env.TEMPORAL_TLS), 'TEMPORAL_TLS'],
    [t.disabled === undefined ? undefined : !t.disabled, 'temporal.tls.disabled in the config'],
    [p.tls?.disabled === undefined ? undefined : !p.tls.disabled, file.where],
  );
  const implied =
    serverCa ??
    clientCert ??
    (serverName ? { from: 'the TLS server name' } : undefined) ??
    (section.tls ? { from: 'temporal.tls in the config' } : undefined) ??
    (p.tls ? { from: file.where } : undefined) ??
    apiKey;
  const tlsOn = on ? on[0] : Boolean(implied);
  const tlsFrom = on ? on[1] : (implied?.from ?? 'nothing asked for it');

  return {
    ...(address ? { address: address[0] } : {}),
    namespace: namespace[0],
    from: { address: address?.[1] ?? 'the default, where `baton dev` serves', namespace: namespace[1] },
    ...(file.name ? { profile: file.name } : {}),
    tls: tlsOn
      ? {
          ...(serverCa ? { serverCa } : {}),
          ...(clientCert ? { clientCert, clientKey } : {}),
          ...(serverName ? { serverName: serverName[0] } : {}),
          from: tlsFrom,
        }
      : false,
    ...(apiKey ? { apiKey } : {}),
  };
}
