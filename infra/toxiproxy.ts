/**
 * Toxiproxy: a TCP proxy that injects network faults (latency, bandwidth, resets, half-open
 * connections, sliced responses, a link that goes down), driven over its HTTP API. The wire-fault
 * tests put one proxy on each link they break. Built from the Go module proxy at a pinned version into
 * `.baton/tools/toxiproxy/<version>/` (git-ignored; a test tool, never shipped) and run on loopback.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/runtime/project-root';
import { ensureGoTool } from './go-tool';
import { freePort } from '../src/runtime/free-port';

/** The newest release the module proxy serves here. */
export const TOXIPROXY_VERSION = 'v2.5.0';

/** The server binary, built first when missing (seconds; `log` hears of it). */
export function ensureToxiproxyBinary(version = TOXIPROXY_VERSION, log: (line: string) => void = () => {}): string {
  return ensureGoTool({
    tool: 'Toxiproxy',
    pkg: 'github.com/Shopify/toxiproxy/v2/cmd/server',
    version,
    dir: join(projectRoot(), '.baton', 'tools', 'toxiproxy', version),
    binary: 'toxiproxy-server',
    log,
  });
}

/** A toxic as Toxiproxy's API takes it. `stream` is the direction: `downstream` is what the upstream answers. */
export interface Toxic {
  type: 'latency' | 'bandwidth' | 'reset_peer' | 'timeout' | 'slicer' | 'slow_close' | 'limit_data';
  stream?: 'upstream' | 'downstream';
  /** Share of connections it applies to, 0 to 1. Default 1. */
  toxicity?: number;
  attributes: Record<string, number>;
}

/** What a fault is applied to: one link, or several at once. */
export interface Faultable {
  add(name: string, toxic: Toxic): Promise<void>;
  remove(name: string): Promise<void>;
  setEnabled(enabled: boolean): Promise<void>;
}

/** One proxied link: callers connect to `listen`, Toxiproxy forwards to `upstream`. */
export class ProxiedLink implements Faultable {
  constructor(
    private readonly api: string,
    readonly name: string,
    /** `127.0.0.1:<port>`: where callers connect. */
    readonly listen: string,
    readonly upstream: string,
  ) {}

  /** `http://127.0.0.1:<port>`: the link's address as a URL. */
  get url(): string {
    return `http://${this.listen}`;
  }

  private async call(method: string, path: string, body?: unknown): Promise<void> {
    const res = await fetch(`${this.api}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`toxiproxy ${method} ${path}: HTTP ${res.status} ${await res.text()}`);
  }

  /** Adds `toxic`, named `name` (one of each name at a time). */
  add(name: string, toxic: Toxic): Promise<void> {
    return this.call('POST', `/proxies/${this.name}/toxics`, { name, stream: 'downstream', toxicity: 1, ...toxic });
  }

  remove(name: string): Promise<void> {
    return this.call('DELETE', `/proxies/${this.name}/toxics/${name}`);
  }

  /** Takes the link down (every connection closed, nothing accepted) or brings it back. */
  setEnabled(enabled: boolean): Promise<void> {
    return this.call('POST', `/proxies/${this.name}`, { enabled });
  }
}

export interface RunningToxiproxy {
  /** The API's base URL. */
  api: string;
  /** A new link listening on `listenPort` (a free one when unset) and forwarding to `upstream` (`host:port`). */
  link(name: string, upstream: string, listenPort?: number): Promise<ProxiedLink>;
  pid(): number | undefined;
  stop(): Promise<void>;
}

/** Starts Toxiproxy on a free loopback port; its log goes to `logFile` (or nowhere). */
export async function startToxiproxy(opts: { logFile?: string } = {}): Promise<RunningToxiproxy> {
  const binary = ensureToxiproxyBinary();
  const port = await freePort();
  const out = opts.logFile ? openSync(opts.logFile, 'a') : 'ignore';
  const child: ChildProcess = spawn(binary, ['-host', '127.0.0.1', '-port', String(port), '-seed', '20261205'], {
    stdio: ['ignore', out, out],
    detached: true,
  });
  const api = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
      await exited;
    }
  };
  process.once('exit', () => void (child.pid && child.exitCode === null && process.kill(-child.pid, 'SIGKILL')));
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`toxiproxy-server exited with ${child.exitCode} before its API answered`);
    try {
      if ((await fetch(`${api}/version`)).ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`toxiproxy-server's API did not answer on ${api} within 15 s`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    api,
    async link(name, upstream, listenPort) {
      const listen = `127.0.0.1:${listenPort ?? (await freePort())}`;
      const res = await fetch(`${api}/proxies`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, listen, upstream, enabled: true }),
      });
      if (!res.ok) throw new Error(`toxiproxy: creating link ${name} (${listen} → ${upstream}): HTTP ${res.status} ${await res.text()}`);
      return new ProxiedLink(api, name, listen, upstream);
    },
    pid: () => child.pid,
    stop,
  };
}
