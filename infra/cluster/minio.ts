/**
 * MinIO, the S3-compatible object store the artifact-store tests and `npm run cluster` use: built
 * from the Go module proxy at a pinned version into `.baton/tools/minio/<version>/` (git-ignored;
 * AGPL-3.0, a test tool, never shipped), run in a private folder on a private port, stopped and
 * started again by us (an outage on demand).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/runtime/project-root';

/** The MinIO module version (MinIO tags releases by date; the proxy serves them as pseudo-versions). */
export const MINIO_VERSION = 'v0.0.0-20260212201848-7aac2a2c5b7c';

/** The binary, built first when missing (about 2 minutes on two cores; `log` hears of it). */
export function ensureMinioBinary(version = MINIO_VERSION, log: (line: string) => void = () => {}): string {
  const bin = join(projectRoot(), '.baton', 'tools', 'minio', version);
  const path = join(bin, 'minio');
  if (existsSync(path)) return path;
  mkdirSync(bin, { recursive: true });
  log(`building MinIO ${version} from the Go module proxy into ${bin} (about 2 minutes, once)`);
  const built = spawnSync('go', ['install', `github.com/minio/minio@${version}`], {
    env: { ...process.env, GOBIN: bin },
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (built.error)
    throw new Error(`MinIO is built with Go, which is missing (${built.error.message}): npm run setup -- --cluster installs it`);
  if (built.status !== 0)
    throw new Error(`go install github.com/minio/minio@${version} failed: ${built.stderr.trim().split('\n').slice(-3).join(' ')}`);
  return path;
}

export interface RunningMinio {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  pid(): number | undefined;
  /** Stops it (SIGTERM, then waits for the exit). */
  stop(): Promise<void>;
  /** Starts it again on the same port and folder. */
  start(): Promise<void>;
}

async function live(endpoint: string, timeoutMs: number, exited: () => boolean): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (exited()) throw new Error(`MinIO exited while starting`);
    try {
      if ((await fetch(`${endpoint}/minio/health/live`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`MinIO did not answer ${endpoint}/minio/health/live within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts MinIO on `port` with its data in `dir` (log in `dir/minio.log`), with fresh root credentials. */
export async function startMinio(dir: string, port: number, log: (line: string) => void = () => {}): Promise<RunningMinio> {
  const binary = ensureMinioBinary(undefined, log);
  mkdirSync(join(dir, 'data'), { recursive: true });
  const accessKeyId = `baton-${randomBytes(4).toString('hex')}`;
  const secretAccessKey = randomBytes(24).toString('base64url');
  const endpoint = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let exited = true;
  const start = async (): Promise<void> => {
    const out = openSync(join(dir, 'minio.log'), 'a');
    exited = false;
    child = spawn(binary, ['server', join(dir, 'data'), '--address', `127.0.0.1:${port}`, '--console-address', '127.0.0.1:0', '--quiet'], {
      env: { ...process.env, MINIO_ROOT_USER: accessKeyId, MINIO_ROOT_PASSWORD: secretAccessKey, MINIO_BROWSER: 'off' },
      stdio: ['ignore', out, out],
    });
    child.once('exit', () => (exited = true));
    await live(endpoint, 30_000, () => exited);
  };
  const stop = async (): Promise<void> => {
    const c = child;
    if (!c || exited) return;
    const gone = new Promise<void>((r) => c.once('exit', () => r()));
    c.kill('SIGTERM');
    await gone;
  };
  await start();
  return { endpoint, accessKeyId, secretAccessKey, pid: () => child?.pid, stop, start };
}
