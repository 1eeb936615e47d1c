/**
 * A real Temporal cluster on this machine, for the cluster tier and for benchmarks: the server built
 * from the Go module proxy, PostgreSQL from Debian, the services (frontend, internal-frontend,
 * history, matching, worker) as separate processes, the frontend behind mTLS and the default JWT
 * authorizer. Every part is started and stopped here, in a private folder on free ports.
 *
 * The system worker reaches the cluster through the internal frontend, which trusts the loopback
 * (internode traffic is plain here): only the public frontend checks certificates and tokens.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { ensureNamespace, registerSearchAttributes } from '../../src/client/namespace-setup';
import { freePort } from '../../src/runtime/free-port';
import { stopChild } from '../../src/runtime/temporal-server';
import { makeCertificates, type ClusterCertificates } from './certs';
import { startTokenIssuer, type TokenIssuer } from './jwks';
import { startPostgres, type RunningPostgres } from './postgres';
import { ensureServerBinaries, type ServerBinaries } from './server-binary';

export const CLUSTER_SERVICES = ['frontend', 'internal-frontend', 'history', 'matching', 'worker'] as const;
export type ClusterService = (typeof CLUSTER_SERVICES)[number];

export interface ClusterOptions {
  /** The folder for everything (database, certificates, config, logs). */
  dir: string;
  /** Namespaces to create, with Baton's search attributes. Default `['default']`. */
  namespaces?: string[];
  log?: (line: string) => void;
}

export interface RunningCluster {
  /** The public frontend: mTLS and tokens. */
  address: string;
  certs: ClusterCertificates;
  tokens: TokenIssuer;
  binaries: ServerBinaries;
  postgres: RunningPostgres;
  /** Connection settings for a client with these permissions (a fresh token each call, valid an hour unless said). */
  env(permissions?: string[], opts?: { expiresInSeconds?: number }): Promise<Record<string, string>>;
  /** Each service's Prometheus metrics endpoint. */
  metricsUrls: string[];
  /** The process ids of the services and of PostgreSQL's postmaster (its backends are its children). */
  pids(): number[];
  /** Stops one service and starts it again (waits until the frontend answers again). */
  restart(service: ClusterService): Promise<void>;
  /** Stops PostgreSQL and starts it again. */
  restartPostgres(): Promise<void>;
  /** Stops every service and PostgreSQL, then starts them all again, as after a power cut (frontend first). */
  restartAll(): Promise<void>;
  stop(): Promise<void>;
}

interface Ports {
  postgres: number;
  /** Each service's Prometheus metrics (the config is a template: each process is given its own). */
  metrics: Record<ClusterService, number>;
  grpc: Record<ClusterService, number>;
  membership: Record<ClusterService, number>;
  http: { frontend: number; 'internal-frontend': number };
}

/** A free port below 32768: the server keeps membership ports in a smallint column. */
async function freeLowPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolveTry) => {
      const probe = createServer();
      probe.once('error', () => resolveTry(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolveTry(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
}

async function choosePorts(): Promise<Ports> {
  const grpc = {} as Record<ClusterService, number>;
  const membership = {} as Record<ClusterService, number>;
  const taken = new Set<number>();
  const metrics = {} as Record<ClusterService, number>;
  for (const s of CLUSTER_SERVICES) {
    grpc[s] = await freePort();
    membership[s] = await freeLowPort(taken);
    metrics[s] = await freePort();
  }
  return {
    postgres: await freePort(),
    grpc,
    membership,
    metrics,
    http: { frontend: await freePort(), 'internal-frontend': await freePort() },
  };
}

function serverConfig(p: Ports, certs: ClusterCertificates, jwksUrl: string, dynamicConfig: string): string {
  const store = (db: string, conns: number) => `
      sql:
        pluginName: postgres12
        databaseName: ${db}
        connectAddr: "127.0.0.1:${p.postgres}"
        connectProtocol: tcp
        user: temporal
        password: ""
        maxConns: ${conns}
        maxIdleConns: ${conns}
        maxConnLifetime: 1h`;
  const service = (s: ClusterService) => `
  ${s}:
    rpc:
      grpcPort: ${p.grpc[s]}
      membershipPort: ${p.membership[s]}
      bindOnIP: 127.0.0.1${s === 'frontend' || s === 'internal-frontend' ? `\n      httpPort: ${p.http[s]}` : ''}`;
  // One mutual TLS group (the server certificate doubles as the client's), for the frontend and between services.
  const tlsGroup = `
      server:
        certFile: ${certs.serverCert}
        keyFile: ${certs.serverKey}
        requireClientAuth: true
        clientCaFiles: [${certs.ca}]
      client:
        serverName: localhost
        rootCaFiles: [${certs.ca}]`;
  // A template (the server renders files that say so): each service process serves its metrics on the port in its environment.
  return `# enable-template
log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 4
  datastores:
    default:${store('temporal', 20)}
    visibility:${store('temporal_visibility', 4)}
global:
  metrics:
    prometheus:
      framework: tally
      listenAddress: "127.0.0.1:{{ env "BATON_METRICS_PORT" }}"
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
  tls:
    frontend:${tlsGroup}
    # Between the services too: the history service reaches the internal frontend's HTTP port (Nexus
    # requests and their completions) with the internode client, and that port serves the frontend's TLS.
    internode:${tlsGroup}
  authorization:
    jwtKeyProvider:
      keySourceURIs: [${jwksUrl}]
      refreshInterval: 1m
    permissionsClaimName: permissions
    authorizer: default
    claimMapper: default
services:${CLUSTER_SERVICES.map(service).join('')}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: 127.0.0.1:${p.grpc.frontend}
      httpAddress: 127.0.0.1:${p.http.frontend}
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: ${dynamicConfig}
  pollInterval: 10s
`;
}

/**
 * Nexus on a 1.29 server needs a callback URL for worker targets; the internal frontend (no JWT, it
 * serves the cluster's own services) takes the completions the history service delivers.
 */
const nexusDynamicConfig = (internalFrontendHttp: number): string => `component.nexusoperations.callback.endpoint.template:
  - value: "https://127.0.0.1:${internalFrontendHttp}/namespaces/{{.NamespaceName}}/nexus/callback"
component.callbacks.allowedAddresses:
  - value:
      - Pattern: "127.0.0.1:${internalFrontendHttp}"
        AllowInsecure: false
`;

const DYNAMIC_CONFIG = `frontend.enableUpdateWorkflowExecution:
  - value: true
frontend.enableUpdateWorkflowExecutionAsyncAccepted:
  - value: true
system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
frontend.workerVersioningWorkflowAPIs:
  - value: true
system.enableDeploymentVersions:
  - value: true
`;

function sqlTool(bin: ServerBinaries, port: number, db: string, args: string[]): void {
  const run = spawnSync(
    bin.sqlTool,
    ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(port), '-u', 'temporal', '--db', db, ...args],
    {
      encoding: 'utf8',
    },
  );
  if (run.status !== 0)
    throw new Error(`temporal-sql-tool ${args[0]} on ${db}: ${(run.stderr || run.stdout).trim().split('\n').slice(-2).join(' ')}`);
}

export async function startCluster(opts: ClusterOptions): Promise<RunningCluster> {
  const log = opts.log ?? (() => {});
  const dir = opts.dir;
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const binaries = ensureServerBinaries(undefined, log);
  const ports = await choosePorts();
  const certs = makeCertificates(join(dir, 'certs'));
  const tokens = await startTokenIssuer();
  log(`PostgreSQL on 127.0.0.1:${ports.postgres}`);
  // PostgreSQL runs as its own user (when we are root), which must reach its folder: one of its own in
  // the system's temporary folder, whatever folder the caller chose for the rest.
  const pgDir = mkdtempSync(join(tmpdir(), 'baton-postgres-'));
  chmodSync(pgDir, 0o755);
  const postgres = startPostgres(join(pgDir, 'pg'), ports.postgres);
  const processes = new Map<ClusterService, ChildProcess>();
  const stopAll = async () => {
    await Promise.all([...processes.keys()].map((s) => stopService(s)));
  };
  try {
    for (const [db, schema] of [
      ['temporal', 'temporal'],
      ['temporal_visibility', 'visibility'],
    ] as const) {
      sqlTool(binaries, ports.postgres, db, ['create']);
      sqlTool(binaries, ports.postgres, db, ['setup-schema', '-v', '0.0']);
      sqlTool(binaries, ports.postgres, db, [
        'update-schema',
        '-d',
        join(binaries.moduleDir, 'schema', 'postgresql', 'v12', schema, 'versioned'),
      ]);
    }
    const configDir = join(dir, 'config');
    mkdirSync(configDir, { recursive: true });
    const dynamic = join(configDir, 'dynamic.yaml');
    writeFileSync(dynamic, DYNAMIC_CONFIG + nexusDynamicConfig(ports.http['internal-frontend']));
    writeFileSync(join(configDir, 'cluster.yaml'), serverConfig(ports, certs, tokens.jwksUrl, dynamic));
  } catch (err) {
    await stopAll();
    postgres.stop();
    await tokens.close();
    throw err;
  }

  function startService(s: ClusterService): void {
    const out = createWriteStream(join(dir, 'logs', `${s}.log`), { flags: 'a' });
    const child = spawn(binaries.server, ['--root', dir, '--config', 'config', '--env', 'cluster', 'start', '--service', s], {
      cwd: dir,
      env: { ...process.env, BATON_METRICS_PORT: String(ports.metrics[s]) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(out, { end: false });
    child.stderr?.pipe(out, { end: false });
    // 'close', not 'exit': output still buffered in the pipes arrives after the process exited.
    child.once('close', () => out.end());
    processes.set(s, child);
  }

  function stopService(s: ClusterService): Promise<void> {
    const child = processes.get(s);
    processes.delete(s);
    return child ? stopChild(child) : Promise.resolve();
  }

  // Whatever ends this process ends the cluster too: nothing is left running on a crash or a forced exit.
  const leftovers = (): void => {
    for (const child of processes.values()) child.kill('SIGKILL');
    try {
      postgres.stop();
    } catch {
      // Already stopped.
    }
  };
  process.once('exit', leftovers);

  const address = `127.0.0.1:${ports.grpc.frontend}`;
  const adminConnect = async (): Promise<Connection> =>
    Connection.connect({
      address,
      connectTimeout: 2_000,
      tls: {
        serverRootCACertificate: readFileSync(certs.ca),
        clientCertPair: { crt: readFileSync(certs.clientCert), key: readFileSync(certs.clientKey) },
        serverNameOverride: 'localhost',
      },
      apiKey: await tokens.token(['temporal-system:admin']),
    });

  /** Which service has exited, with its code and log, when one has (`what`: what the cluster was doing). */
  const exitedWhile = (what: string): string | undefined => {
    for (const [s, child] of processes) {
      if (child.exitCode !== null)
        return `the Temporal ${s} service exited (${child.exitCode}) while ${what}: see ${join(dir, 'logs', `${s}.log`)}`;
    }
    return undefined;
  };

  /**
   * Waits until the frontend serves a namespace read with an admin token, and (`all`) history and
   * matching answer through it: a read of a workflow that does not exist is "not found", not "no hosts".
   */
  const ready = async (what: string, all = true): Promise<void> => {
    const started = Date.now();
    let last: unknown;
    while (Date.now() - started < 120_000) {
      const exited = exitedWhile(what);
      if (exited) throw new Error(exited);
      try {
        const connection = await adminConnect();
        try {
          await connection.workflowService.describeNamespace({ namespace: 'temporal-system' });
          if (!all) return;
          await connection.workflowService.describeTaskQueue({ namespace: 'temporal-system', taskQueue: { name: 'baton-ready' } });
          // History answers "not found" for a workflow that does not exist; "no hosts" (thrown) means not yet.
          await connection.workflowService
            .describeWorkflowExecution({ namespace: 'temporal-system', execution: { workflowId: 'baton-ready-probe' } })
            .catch((err: { code?: number }) => {
              if (err.code !== 5) throw err;
            });
          return;
        } finally {
          await connection.close();
        }
      } catch (err) {
        last = err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    throw new Error(
      `the Temporal cluster did not answer within 120 s while ${what}: ${(last as Error)?.message}; logs in ${join(dir, 'logs')}`,
    );
  };

  try {
    // The frontend first: it writes the cluster's metadata once; services started at the same moment race to.
    startService('frontend');
    await ready('starting the frontend', false);
    for (const s of CLUSTER_SERVICES) if (s !== 'frontend') startService(s);
    await ready('starting');
    const connection = await adminConnect();
    try {
      for (const namespace of opts.namespaces ?? ['default']) {
        await ensureNamespace(connection, namespace, 86_400);
        await registerSearchAttributes(connection, namespace);
      }
    } catch (err) {
      // A service that died after the readiness check (the worker service gives up on a slow start)
      // leaves the frontend answering UNAVAILABLE: say which one, not only what the frontend said.
      const exited = exitedWhile('setting up namespaces');
      throw exited ? new Error(`${exited}; then: ${(err as Error).message}`) : err;
    } finally {
      await connection.close();
    }
  } catch (err) {
    await stopAll();
    postgres.stop();
    await tokens.close();
    throw err;
  }
  log(`Temporal ${binaries.version} frontend at ${address} (mTLS, JWT authorizer)`);

  return {
    address,
    certs,
    tokens,
    binaries,
    postgres,
    metricsUrls: CLUSTER_SERVICES.map((s) => `http://127.0.0.1:${ports.metrics[s]}/metrics`),
    pids() {
      const services = [...processes.values()].flatMap((c) => (c.pid ? [c.pid] : []));
      let postmaster: number[] = [];
      try {
        postmaster = [Number(readFileSync(join(postgres.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0])].filter((n) => n > 0);
      } catch {
        // Stopped.
      }
      return [...services, ...postmaster];
    },
    async env(permissions = ['default:write', 'default:worker'], opts = {}) {
      return {
        TEMPORAL_ADDRESS: address,
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.ca,
        TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert,
        TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey,
        TEMPORAL_TLS_SERVER_NAME: 'localhost',
        TEMPORAL_API_KEY: await tokens.token(permissions, opts),
      };
    },
    async restart(service) {
      await stopService(service);
      startService(service);
      await ready(`restarting ${service}`);
    },
    async restartPostgres() {
      postgres.stop();
      postgres.start();
      await ready('restarting PostgreSQL');
    },
    async restartAll() {
      await stopAll();
      postgres.stop();
      postgres.start();
      startService('frontend');
      await ready('restarting the whole cluster (the frontend first)', false);
      for (const s of CLUSTER_SERVICES) if (s !== 'frontend') startService(s);
      await ready('restarting the whole cluster');
    },
    async stop() {
      process.off('exit', leftovers);
      await stopAll();
      try {
        postgres.stop();
      } catch {
        // Already stopped.
      }
      await tokens.close();
      rmSync(pgDir, { recursive: true, force: true });
    },
  };
}
