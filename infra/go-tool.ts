/**
 * Test tools built from the Go module proxy as tools of a module of our own (`go get -tool`, then
 * `go build`): that works for modules whose go.mod has replace directives, which `go install pkg@version`
 * refuses. Built once into a git-ignored folder; never shipped.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function go(args: string[], cwd: string, what: string, tool: string): void {
  const run = spawnSync('go', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (run.error) throw new Error(`${tool} is built with Go, which is missing (${run.error.message}): npm run setup -- --test installs it`);
  if (run.status !== 0) throw new Error(`${what} failed: ${run.stderr.trim().split('\n').slice(-3).join(' ')}`);
}

/**
 * `dir/<binary>`, built from package `pkg` at `version` when missing. `tool` names it in
 * messages; `log` hears of a build.
 */
export function ensureGoTool(opts: {
  tool: string;
  pkg: string;
  version: string;
  dir: string;
  binary: string;
  log?: (line: string) => void;
  took?: string;
}): string {
  const path = join(opts.dir, opts.binary);
  if (existsSync(path)) return path;
  const mod = join(opts.dir, 'mod');
  mkdirSync(mod, { recursive: true });
  opts.log?.(`building ${opts.tool} ${opts.version} from the Go module proxy into ${opts.dir}${opts.took ? ` (${opts.took}, once)` : ''}`);
  writeFileSync(join(mod, 'go.mod'), `module baton.local/${opts.binary}-tool\n\ngo 1.24\n`);
  go(['get', '-tool', `${opts.pkg}@${opts.version}`], mod, `go get -tool ${opts.binary}@${opts.version}`, opts.tool);
  go(['build', '-o', path, opts.pkg], mod, `go build ${opts.binary}@${opts.version}`, opts.tool);
  return path;
}
