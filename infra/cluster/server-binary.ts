/**
 * The Temporal server and its SQL schema tool, built from the Go module proxy at a pinned version and
 * cached in `.baton/tools/temporal-server/<version>/` (git-ignored). The module's own schema files and
 * config samples come with the build, in Go's module cache.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/runtime/project-root';

/** The server version the cluster tier runs (the one `../shared/reference/temporal-cluster.md` measured). */
export const TEMPORAL_SERVER_VERSION = '1.29.1';

export interface ServerBinaries {
  version: string;
  server: string;
  sqlTool: string;
  /** The module's folder: `schema/postgresql/v12/...` lives here. */
  moduleDir: string;
}

function goEnv(name: string): string {
  return execFileSync('go', ['env', name], { encoding: 'utf8' }).trim();
}

/** The binaries, built first when missing (about 4 minutes on two cores; `log` hears of it). */
export function ensureServerBinaries(version = TEMPORAL_SERVER_VERSION, log: (line: string) => void = () => {}): ServerBinaries {
  const bin = join(projectRoot(), '.baton', 'tools', 'temporal-server', version);
  const server = join(bin, 'server');
  const sqlTool = join(bin, 'sql');
  let moduleDir: string;
  try {
    moduleDir = join(goEnv('GOMODCACHE'), `go.temporal.io/server@v${version}`);
  } catch {
    throw new Error(
      'the cluster needs Go (the golang package) to build the Temporal server: install it, or run npm run setup -- --cluster',
    );
  }
  for (const [path, pkg] of [
    [server, 'cmd/server'],
    [sqlTool, 'cmd/tools/sql'],
  ] as const) {
    if (existsSync(path) && existsSync(moduleDir)) continue;
    mkdirSync(bin, { recursive: true });
    log(`building the Temporal server's ${pkg} ${version} from the Go module proxy into ${bin} (a few minutes, once)`);
    const built = spawnSync('go', ['install', `go.temporal.io/server/${pkg}@v${version}`], {
      env: { ...process.env, GOBIN: bin },
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    if (built.status !== 0)
      throw new Error(`go install go.temporal.io/server/${pkg}@v${version} failed: ${built.stderr.trim().split('\n').slice(-3).join(' ')}`);
  }
  return { version, server, sqlTool, moduleDir };
}
