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

/**
 * Where the TCK is: BATON_A2A_TCK, else the copy the machine provides beside the checkout
 * (`../shared/tools/a2a-tck`, looked for from the project's folder upwards).
 */
export function tckDir(): string {
  if (process.env.BATON_A2A_TCK) return resolve(process.env.BATON_A2A_TCK);
  const beside = (dir: string): string => join(dir, 'shared', 'tools', 'a2a-tck');
  for (let dir = dirname(projectRoot()); ; dir = dirname(dir)) {
    if (existsSync(beside(dir))) return beside(dir);
    if (dirname(dir) === dir) return beside(dirname(projectRoot()));
  }
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

export async function runTck(opts: { sutHost: string; token: string; grpcTenant: string; reportDir?: string }): Promise<TckSummary> {
  const out = opts.reportDir ?? mkdtempSync(join(tmpdir(), 'baton-tck-'));
  const report = join(out, 'compatibility.json');
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
  if (!existsSync(report)) throw new Error(`the TCK wrote no report (exit ${code}):\n${tail}`);
  return summarize(JSON.parse(readFileSync(report, 'utf8')) as Report, code, tail);
}

function summarize(r: Report, exitCode: number, tail: string): TckSummary {
  const zero = (): Counts => ({ passed: 0, failed: 0, skipped: 0 });
  const levels: Record<Level, Counts> = { MUST: zero(), SHOULD: zero(), MAY: zero() };
  const byLevelAndBinding: TckSummary['byLevelAndBinding'] = { MUST: {}, SHOULD: {}, MAY: {} };
  const failures: TckSummary['failures'] = [];
  const skipped: TckSummary['skipped'] = [];
  for (const [requirement, req] of Object.entries(r.per_requirement)) {
    const level = req.level;
    if (!levels[level]) continue;
    const entries = Object.entries(req.transports);
    if (!entries.length) continue;
    // A requirement fails when any of its checks failed, though its last check on a binding passed
    // (the report keeps one status per binding: the last).
    const failed = req.status === 'FAIL';
    const failedOn = entries.filter(([, s]) => s === 'FAIL').map(([t]) => t);
    const blamed = failed && !failedOn.length ? entries.map(([t]) => t) : failedOn;
    const skippedOn = entries.filter(([, s]) => s === 'SKIPPED').map(([t]) => t);
    if (failed) {
      levels[level].failed++;
      failures.push({
        requirement,
        level,
        transports: blamed,
        error: (req.errors[0] ?? '').split('\n')[0]!.slice(0, 300),
        errors: req.errors,
      });
    } else if (skippedOn.length === entries.length) levels[level].skipped++;
    else levels[level].passed++;
    if (skippedOn.length) skipped.push({ requirement, level, transports: skippedOn });
    for (const [t, s] of entries) {
      const c = (byLevelAndBinding[level][t as TckBinding] ??= zero());
      if (blamed.includes(t)) c.failed++;
      else if (s === 'PASS') c.passed++;
      else c.skipped++;
    }
  }
  return { levels, byLevelAndBinding, failures, skipped, exitCode, tail };
}
