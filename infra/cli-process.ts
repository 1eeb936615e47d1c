/**
 * Runs the real `baton` command as a child process, the way a user would.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const BATON = join(__dirname, '..', 'src', 'cli', 'main.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a fresh user has: no TEMPORAL_ADDRESS unless given, JSON logs. */
export function userEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, BATON_LOG_FORMAT: 'json', BATON_LOG_LEVEL: 'info' };
  delete env.TEMPORAL_ADDRESS;
  delete env.BATON_CONFIG;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Runs `baton args` to its end (in `cwd`, default this process's folder). */
export function runCli(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<CliRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BATON, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

/** A long-running command (`baton dev`) with a way to wait for what it prints. */
export class CliProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(args: string[], env: NodeJS.ProcessEnv, cwd?: string) {
    this.child = spawn(process.execPath, [BATON, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout?.on('data', (c: Buffer) => (this.stdout += c.toString()));
    this.child.stderr?.on('data', (c: Buffer) => (this.stderr += c.toString()));
    this.exited = new Promise((r) => this.child.once('exit', (code, signal) => r({ code, signal })));
  }

  /** Resolves when stdout (or stderr) contains `text`; rejects if the process exits first. */
  waitFor(text: string, stream: 'stdout' | 'stderr' = 'stdout'): Promise<void> {
    const source = stream === 'stdout' ? this.child.stdout : this.child.stderr;
    return new Promise((resolveWait, reject) => {
      const check = (): void => {
        if (this[stream].includes(text)) {
          source?.off('data', check);
          resolveWait();
        }
      };
      source?.on('data', check);
      void this.exited.then(({ code }) =>
        reject(new Error(`exited with ${code} before printing "${text}"\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`)),
      );
      check();
    });
  }

  /** pino lines from stderr. */
  logs(): Record<string, unknown>[] {
    return logsOf(this.stderr);
  }
}

export function logsOf(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** An expected failure as users see it: exit `code`, exactly one line on stderr matching `line`, no stack trace. */
export function saysOneLine(run: CliRun, code: number, line: RegExp): void {
  assert.equal(run.code, code, `exit code; stderr:\n${run.stderr}`);
  const lines = run.stderr.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, `one line on stderr, got:\n${run.stderr}`);
  assert.match(lines[0] ?? '', line);
  assert.doesNotMatch(run.stderr, /^\s+at /m, 'no stack trace');
}
