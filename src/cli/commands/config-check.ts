/**
 * `baton config check`: validates the config file and what it points at on this machine (credential
 * variables and files, pinned keys), without calling any agent.
 */
import { encryptionCodec } from '../../codec/data-converter';
import { cardSigner, checkServices } from '../../serve/served-agents';
import { ConfigError, loadConfig } from '../../config/load';
import type { BatonConfig } from '../../config/schema';
import { readSecret } from '../../secrets/read-secret';
import { authValueOf, credentialOf } from '../../a2a/agent-credentials';
import { PolicyRegistry } from '../../acceptance/policies';
import { connectionOptions, DEFAULT_ADDRESS } from '../../runtime/connect';
import type { TemporalTarget } from '../../config/temporal-target';
import { codecTokenProblems } from '../../http/codec-server';
import { callerTokenProblems } from '../../auth/caller-tokens';
import { limitsStoreProblem } from '../../limits/configured-budget';
import { taskIdKeyProblem } from '../../served-tasks/task-id';
import { MCP_SESSION_KEY } from '../../mcp/session-id';
import { sharedKeyProblem } from '../../config/shared-key';
import { printJson } from '../output';
import { agentIdentityProblems, callerIdentityProblems, identityReport, type IdentityReport } from './identity-report';

export interface ConfigReport {
  file?: string;
  ok: boolean;
  agents: string[];
  problems: string[];
  /** What works but should change (a renamed field); they do not make the config fail. */
  warnings: string[];
  /** What Baton would connect to Temporal with, each setting with its source; never a secret. */
  temporal?: TemporalReport;
  /** Which identity each agent and each class of caller would use; never a secret. */
  identity?: IdentityReport;
  /** The Nexus endpoint the worker serves behind and who may call it (`baton setup --nexus` creates it). */
  nexus?: NexusReport;
}

export interface NexusReport {
  endpoint: string;
  target: { namespace: string; taskQueue: string };
  /** Each calling namespace, as `<namespace> → tenant <tenant> as <user>`. */
  callers: string[];
}

function nexusReport(config: BatonConfig): NexusReport | undefined {
  const nexus = config.nexus;
  if (!nexus) return undefined;
  return {
    endpoint: nexus.endpoint,
    target: { namespace: config.temporal.namespace, taskQueue: config.temporal.taskQueue },
    callers: nexus.callers.map(
      (c) =>
        `${c.namespace} → tenant ${c.tenant} as ${c.user ?? `nexus:${c.namespace}`}${c.userHeader ? ` (or the user its ${c.userHeader} header names)` : ''}`,
    ),
  };
}

export interface TemporalReport {
  address: string;
  addressFrom: string;
  namespace: string;
  namespaceFrom: string;
  /** The profile of Temporal's config file that was read, if one was. */
  profile?: string;
  tls: { on: false } | { on: true; from: string; serverCa?: string; clientCertificate?: string; serverName?: string };
  /** Who Baton says it is: an API key's source, a client certificate's, or none. */
  credential: string;
}

function temporalReport(target: TemporalTarget): TemporalReport {
  const tls = target.tls;
  const credential = target.apiKey
    ? `API key from ${target.apiKey.from}`
    : tls && tls.clientCert
      ? `client certificate from ${tls.clientCert.from}`
      : 'none';
  return {
    address: target.address ?? DEFAULT_ADDRESS,
    addressFrom: target.from.address,
    namespace: target.namespace,
    namespaceFrom: target.from.namespace,
    ...(target.profile ? { profile: target.profile } : {}),
    tls: tls
      ? {
          on: true,
          from: tls.from,
          ...(tls.serverCa ? { serverCa: tls.serverCa.from } : {}),
          ...(tls.clientCert ? { clientCertificate: tls.clientCert.from } : {}),
          ...(tls.serverName ? { serverName: tls.serverName } : {}),
        }
      : { on: false },
    credential,
  };
}

/** A plain-http URL on this machine: where `allowHttp` is expected. */
const isLoopbackHttp = (url: string): boolean => /^http:\/\/(127\.|localhost|\[::1\])/.test(url);

/** The agents' secrets and keys, readable as a worker would read them; plain http only on loopback. */
function agentSecretProblems(config: BatonConfig): string[] {
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(config.agents)) {
    if (entry.auth) {
      try {
        credentialOf(name, entry.auth);
      } catch (err) {
        problems.push(`agents.${name}.auth: ${(err as Error).message.replace(`agent ${name}: `, '')}; set it before starting a worker`);
      }
    }
    for (const [credential, source] of Object.entries(entry.credentials)) {
      try {
        readSecret(source, `agents.${name}.credentials.${credential}`);
      } catch (err) {
        problems.push(`${(err as Error).message}; set it before a worker sends it`);
      }
    }
    for (const [i, key] of (entry.signature?.keys ?? []).entries()) {
      if (typeof key.jwk.kty !== 'string')
        problems.push(`agents.${name}.signature.keys.${i}.jwk: not a JWK (no "kty"); paste the agent's public key as JSON`);
      if ('d' in key.jwk)
        problems.push(`agents.${name}.signature.keys.${i}.jwk: this is a private key ("d" is present); pin the public key only`);
    }
    if (entry.allowHttp && !isLoopbackHttp(entry.card)) {
      problems.push(`agents.${name}.allowHttp: true for a non-loopback card URL; use https, or keep allowHttp for local agents only`);
    }
  }
  return problems;
}

/** The MCP servers' credentials and environment, as a worker would start them. */
function mcpServerProblems(config: BatonConfig): string[] {
  const problems: string[] = [];
  for (const [name, server] of Object.entries(config.mcp?.servers ?? {})) {
    const field = `mcp.servers.${name}`;
    if (server.auth) {
      try {
        authValueOf(server.auth, `${field}.auth`);
      } catch (err) {
        problems.push(`${(err as Error).message}; set it before a worker calls this server`);
      }
    }
    for (const variable of server.env)
      if (process.env[variable] === undefined) problems.push(`${field}.env: ${variable} is not set; the server would start without it`);
    if (server.url && server.allowHttp && !isLoopbackHttp(server.url))
      problems.push(`${field}.allowHttp: true for a non-loopback URL; use https, or keep allowHttp for local servers only`);
  }
  return problems;
}

/**
 * What `baton serve` and `baton ui` check at start: the agents the services name, their graphs, the
 * signing key; then the keys that seal callers' webhook tokens. A missing task id key is a warning.
 */
function serveProblems(config: BatonConfig, warnings: string[]): string[] {
  const problems: string[] = [];
  const serve = config.serve;
  if (!serve) return problems;
  try {
    // What `baton serve` and `baton ui` check at start: the agents the services name, their graphs,
    // the signing key; then the keys that seal callers' webhook tokens.
    checkServices(serve, config.agents);
    if (serve.signing) cardSigner(serve.signing);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...(err.problems.length ? err.problems : [err.message]));
  }
  const keyProblem = taskIdKeyProblem(serve.taskIdKeyFromEnv);
  if (keyProblem) problems.push(keyProblem);
  if (process.env[serve.taskIdKeyFromEnv] === undefined && config.api.callers.length)
    warnings.push(
      `serve.taskIdKeyFromEnv: ${serve.taskIdKeyFromEnv} is not set: each process keys its served task ids itself, so a retried SendMessage that reaches another replica starts a second task`,
    );
  try {
    if (serve.push.keys) encryptionCodec(serve.push.keys, 'serve.push.keys.keys');
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(err.message);
  }
  return problems;
}

export function checkConfig(configPath?: string): ConfigReport {
  let loaded;
  try {
    loaded = loadConfig(configPath, { quiet: true });
  } catch (err) {
    if (err instanceof ConfigError)
      return { ok: false, agents: [], problems: err.problems.length ? err.problems : [err.message], warnings: [] };
    throw err;
  }
  const problems: string[] = [];
  const known = new PolicyRegistry();
  for (const [name, declared] of Object.entries(loaded.config.policies)) {
    try {
      known.declare(name, declared);
    } catch (err) {
      problems.push(`${(err as Error).message}; name a built-in policy or one declared before it`);
    }
  }
  for (const [name, entry] of Object.entries(loaded.config.agents)) {
    if (!known.has(entry.acceptance))
      problems.push(
        `agents.${name}.acceptance: unknown policy "${entry.acceptance}"; use one of ${known.names().join(', ')} or declare it under policies (a policy registered in code by your application is fine: then ignore this)`,
      );
  }
  problems.push(...agentSecretProblems(loaded.config), ...mcpServerProblems(loaded.config));
  problems.push(...callerTokenProblems(loaded.config.api));
  problems.push(...agentIdentityProblems(loaded.config), ...callerIdentityProblems(loaded.config));
  const limitsStore = limitsStoreProblem(loaded.config.api);
  if (limitsStore) problems.push(limitsStore);
  const mcpKey = loaded.config.api.mcp ? sharedKeyProblem(loaded.config.api.mcpSessionKeyFromEnv, MCP_SESSION_KEY) : undefined;
  if (mcpKey) problems.push(mcpKey);
  const { api } = loaded.config;
  if (api.mcp && process.env[api.mcpSessionKeyFromEnv] === undefined && (api.callers.length || api.issuers.length))
    loaded.warnings.push(
      `api.mcpSessionKeyFromEnv: ${api.mcpSessionKeyFromEnv} is not set: MCP session ids are sealed for one process, so a restart of baton ui (or another replica) makes every host initialize again`,
    );
  const push = loaded.config.push;
  if (push && !process.env[push.secretFromEnv])
    problems.push(`push.secretFromEnv: ${push.secretFromEnv} is not set; set it to the same random secret on the webhook and every worker`);
  for (const [name, entry] of Object.entries(loaded.config.agents)) {
    if (entry.observe === 'push' && !push)
      problems.push(`agents.${name}.observe: push needs a push section (push.url: where agents reach the webhook)`);
  }
  if (loaded.config.encryption) {
    try {
      // Reads every key now, as a worker would at start.
      encryptionCodec(loaded.config.encryption);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(err.message);
    }
    problems.push(...codecTokenProblems(loaded.config));
  }
  const s3 = loaded.config.artifacts.store === 's3' ? loaded.config.artifacts.s3 : undefined;
  for (const name of [s3?.accessKeyIdFromEnv, s3?.secretAccessKeyFromEnv]) {
    if (name && !process.env[name])
      problems.push(`artifacts.s3: ${name} is not set; set it on every worker and client that reads artifacts`);
  }
  problems.push(...serveProblems(loaded.config, loaded.warnings));
  let temporal: TemporalReport | undefined;
  try {
    // Reads and checks the certificate and key files as a connection would, without connecting.
    temporal = temporalReport(connectionOptions(loaded.config.temporal).target);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(err.message);
  }
  const nexus = nexusReport(loaded.config);
  if (nexus && !nexus.callers.length)
    loaded.warnings.push('nexus.callers: no namespace may call yet; every operation is refused until one is listed with its tenant');
  return {
    file: loaded.path,
    ok: problems.length === 0,
    agents: Object.keys(loaded.config.agents),
    problems,
    warnings: loaded.warnings,
    ...(temporal ? { temporal } : {}),
    identity: identityReport(loaded.config),
    ...(nexus ? { nexus } : {}),
  };
}

function temporalLines(t: TemporalReport): string[] {
  const tls = t.tls.on
    ? `on (${t.tls.from}${t.tls.serverCa ? `; server CA from ${t.tls.serverCa}` : ''}${t.tls.serverName ? `; server name ${t.tls.serverName}` : ''})`
    : 'off';
  return [
    `  temporal: ${t.address} (${t.addressFrom}), namespace ${t.namespace} (${t.namespaceFrom})${t.profile ? `, profile ${t.profile}` : ''}`,
    `  tls: ${tls}; credential: ${t.credential}`,
  ];
}

export function configCheckCommand(opts: { json?: boolean; config?: string }): Promise<number> {
  const report = checkConfig(opts.config);
  if (opts.json) printJson(report);
  else {
    const file = report.file ?? (report.ok ? 'built-in defaults' : 'config');
    const lines = report.ok
      ? [`${file}: ok (${report.agents.length} agent(s): ${report.agents.join(', ') || 'none'})`]
      : [`${file}: ${report.problems.length} problem(s)`, ...report.problems.map((p) => `  - ${p}`)];
    lines.push(...report.warnings.map((w) => `  warning: ${w}`));
    if (report.temporal) lines.push(...temporalLines(report.temporal));
    if (report.identity) {
      for (const [name, how] of Object.entries(report.identity.agents)) lines.push(`  agent ${name}: ${how}`);
      for (const how of report.identity.callers) lines.push(`  callers: ${how}`);
    }
    if (report.nexus) {
      const { endpoint, target, callers } = report.nexus;
      lines.push(
        `  nexus: endpoint ${endpoint} → namespace ${target.namespace}, task queue ${target.taskQueue} (baton setup --nexus creates it)`,
        ...callers.map((c) => `  nexus caller: ${c}`),
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return Promise.resolve(report.ok ? 0 : 1);
}
