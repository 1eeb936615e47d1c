/**
 * Prometheus (Debian's package): the metrics test runs one that scrapes Baton's endpoints every
 * second and reads the series back through its HTTP API, as an operator's Prometheus would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../src/runtime/free-port';

export interface RunningPrometheus {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** An instant query's result vector (`/api/v1/query`); throws on a query Prometheus refuses. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** The job's targets and their health (`/api/v1/targets`). */
  targets(): Promise<{ scrapeUrl: string; health: string; lastError: string }[]>;
  stop(): Promise<void>;
}

/** Starts Prometheus scraping `targets` (`host:port`, path `/metrics`) every second, with its data and log in `dir`. */
export async function startPrometheus(dir: string, targets: string[]): Promise<RunningPrometheus> {
  mkdirSync(join(dir, 'data'), { recursive: true });
  const port = await freePort();
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: baton\n    static_configs:\n      - targets: ${JSON.stringify(targets)}\n`,
  );
  const out = openSync(join(dir, 'prometheus.log'), 'a');
  let child: ChildProcess;
  try {
    child = spawn(
      'prometheus',
      [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
      { stdio: ['ignore', out, out] },
    );
  } catch (err) {
    throw new Error(`prometheus could not be started (${(err as Error).message}): npm run setup -- --test installs it`);
  }
  let exited = false;
  // A test that times out is ended with process.exit (--test-force-exit): take Prometheus along.
  const orphaned = (): void => void child.kill('SIGKILL');
  process.once('exit', orphaned);
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (err) =>
      reject(new Error(`prometheus could not be started (${err.message}): npm run setup -- --test installs it`)),
    );
    child.once('exit', () => {
      exited = true;
      process.off('exit', orphaned);
      reject(new Error(`prometheus exited (log: ${join(dir, 'prometheus.log')})`));
    });
  });
  failed.catch(() => {});
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 30_000;
  for (;;) {
    const ready = await Promise.race([
      fetch(`${url}/-/ready`).then(
        (r) => r.ok,
        () => false,
      ),
      failed,
    ]);
    if (ready) break;
    if (Date.now() > until) throw new Error(`prometheus did not become ready on ${url} within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${url}${path}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${path}: ${body.error ?? res.status}`);
    return body.data;
  };
  return {
    url,
    query: async (expr) => (await api<{ result: [] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`)).result,
    targets: async () => (await api<{ activeTargets: [] }>('/api/v1/targets')).activeTargets,
    stop: async () => {
      if (exited) return;
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      await gone;
    },
  };
}
