/**
 * Runs the A2A TCK (read-only, ../shared/tools/a2a-tck, or BATON_A2A_TCK) with the project's own
 * pytest plugin (test/conformance/tck_plugin.py), in the virtual environment install-test-tools.sh
 * makes, and reads its JSON report into a summary per level and binding.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { projectRoot } from '../../src/runtime/project-root';

export const TCK_VENV = join(projectRoot(), '.baton', 'tools', 'a2a-tck-venv');

/** Where this machine keeps its shared tools, for a checkout that is not beside them (a clone in /tmp). */
const MACHINE_SHARED = '/work/shared';

/**
 * Where the TCK is: BATON_A2A_TCK, else the copy the machine provides beside the checkout
 * (`../shared/tools/a2a-tck`, looked for from the project's folder upwards), else in the machine's
 * shared folder.
 */
export function tckDir(): string {
  if (process.env.BATON_A2A_TCK) return resolve(process.env.BATON_A2A_TCK);
  const kit = (shared: string): string => join(shared, 'tools', 'a2a-tck');
  for (let dir = dirname(projectRoot()); dirname(dir) !== dir; dir = dirname(dir))
    if (existsSync(kit(join(dir, 'shared')))) return kit(join(dir, 'shared'));
  return kit(MACHINE_SHARED);
}

/** Why the TCK cannot run here, or undefined. */
export function tckProblem(): string | undefined {
  if (!existsSync(join(tckDir(), 'tests', 'compatibility', 'conftest.py')))
    return `no A2A TCK at ${tckDir()}: set BATON_A2A_TCK to a checkout of a2aproject/a2a-tck (branch 1.0-dev)`;
  if (!existsSync(join(TCK_VENV, 'bin', 'python')))
    return `no ${TCK_VENV}: run npm run setup -- --test (it installs the TCK's Python packages)`;
  return undefined;
}

export type Level = 'MUST' | 'SHOULD' | 'MAY';
export type TckBinding = 'jsonrpc' | 'http_json' | 'grpc';
export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

export interface TckSummary {
  /** Requirements per level (a requirement passes only when it passes on every binding it ran on). */
  levels: Record<Level, Counts>;
  /** Requirements per level and binding. */
  byLevelAndBinding: Record<Level, Partial<Record<TckBinding, Counts>>>;
  failures: { requirement: string; level: Level; transports: string[]; error: string; errors: string[] }[];
  /** Requirement ids skipped on some binding, with the level. */
  skipped: { requirement: string; level: Level; transports: string[] }[];
  /** pytest's exit code and its output's last lines. */
  exitCode: number;
  tail: string;
}

interface Report {
  per_requirement: Record<string, { level: Level; status: string; transports: Record<string, string>; errors: string[] }>;
}

/** One check of the kit, as its collector recorded it (tck_plugin.py writes them). */
interface CheckResult {
  requirement_id: string;
  transport: string;
  passed: boolean;
  skipped: boolean;
  errors: string[];
}

export async function runTck(opts: { sutHost: string; token: string; grpcTenant: string; reportDir?: string }): Promise<TckSummary> {
  const out = opts.reportDir ?? mkdtempSync(join(tmpdir(), 'baton-tck-'));
  const report = join(out, 'compatibility.json');
  const checks = join(out, 'checks.json');
  const args = [
    '-m',
    'pytest',
    '-p',
    'tck_plugin',
    '-p',
    'no:cacheprovider',
    '-q',
    '--no-header',
    '-rN',
    '--tb=line',
    `--rootdir=${tckDir()}`,
    '-c',
    join(tckDir(), 'pyproject.toml'),
    '--sut-host',
    opts.sutHost,
    '--webhook-host',
    '127.0.0.1',
    '--compatibility-report',
    join(out, 'compatibility'),
    join(tckDir(), 'tests', 'compatibility'),
  ];
  const { code, output } = await new Promise<{ code: number; output: string }>((done, fail) => {
    const child = spawn(join(TCK_VENV, 'bin', 'python'), args, {
      cwd: out,
      env: {
        ...process.env,
        PYTHONPATH: [tckDir(), join(projectRoot(), 'test', 'conformance')].join(':'),
        PYTHONDONTWRITEBYTECODE: '1',
        BATON_TCK_TOKEN: opts.token,
        BATON_TCK_GRPC_TENANT: opts.grpcTenant,
        BATON_TCK_RESULTS: checks,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (b: Buffer) => (text += b.toString()));
    child.stderr.on('data', (b: Buffer) => (text += b.toString()));
    child.once('error', fail);
    child.once('exit', (c) => done({ code: c ?? 1, output: text }));
  });
  const tail = output.split('\n').slice(-60).join('\n');
  if (!existsSync(report) || !existsSync(checks)) throw new Error(`the TCK wrote no report (exit ${code}):\n${tail}`);
  return summarize(
    JSON.parse(readFileSync(report, 'utf8')) as Report,
    JSON.parse(readFileSync(checks, 'utf8')) as CheckResult[],
    code,
    tail,
  );
}

function summarize(r: Report, checks: CheckResult[], exitCode: number, tail: string): TckSummary {
  const zero = (): Counts => ({ passed: 0, failed: 0, skipped: 0 });
  const levels: Record<Level, Counts> = { MUST: zero(), SHOULD: zero(), MAY: zero() };
  const byLevelAndBinding: TckSummary['byLevelAndBinding'] = { MUST: {}, SHOULD: {}, MAY: {} };
  const failures: TckSummary['failures'] = [];
  const skipped: TckSummary['skipped'] = [];
  // Per requirement and binding: failed when any check failed, skipped when every one was.
  const outcome = new Map<string, Map<string, { failed: boolean; ran: boolean; errors: string[] }>>();
  for (const c of checks) {
    const byBinding = outcome.get(c.requirement_id) ?? new Map();
    outcome.set(c.requirement_id, byBinding);
    const o = byBinding.get(c.transport) ?? { failed: false, ran: false, errors: [] };
    byBinding.set(c.transport, o);
    if (!c.skipped) o.ran = true;
    if (!c.passed && !c.skipped) {
      o.failed = true;
      o.errors.push(...c.errors);
    }
  }
  for (const [requirement, byBinding] of outcome) {
    const level = r.per_requirement[requirement]?.level ?? 'MUST';
    if (!levels[level]) continue;
    const entries = [...byBinding.entries()];
    const failedOn = entries.filter(([, o]) => o.failed).map(([t]) => t);
    const skippedOn = entries.filter(([, o]) => !o.ran).map(([t]) => t);
    if (failedOn.length) {
      levels[level].failed++;
      const errors = entries.flatMap(([, o]) => o.errors);
      failures.push({ requirement, level, transports: failedOn, error: (errors[0] ?? '').split('\n')[0]!.slice(0, 300), errors });
    } else if (skippedOn.length === entries.length) levels[level].skipped++;
    else levels[level].passed++;
    if (skippedOn.length) skipped.push({ requirement, level, transports: skippedOn });
    for (const [t, o] of entries) {
      const c = (byLevelAndBinding[level][t as TckBinding] ??= zero());
      if (o.failed) c.failed++;
      else if (o.ran) c.passed++;
      else c.skipped++;
    }
  }
  return { levels, byLevelAndBinding, failures, skipped, exitCode, tail };
}
