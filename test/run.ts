/**
 * The test command: one Temporal dev server for the whole run (unless TEMPORAL_ADDRESS names one),
 * then node's test runner over every unit and integration test, in parallel processes. A test that
 * hangs fails after 3 minutes instead of holding the run. Then `test/long` alone, with 10 minutes per
 * file: tests that simulate weeks on a time-skipping server of their own take minutes, and beside
 * the rest of the run they would take longer still. Last `test/conformance`, the A2A conformance kit
 * (a few minutes of its own requests against one served agent), also alone.
 */
import { spawn } from 'node:child_process';
import { join, relative, resolve } from 'node:path';
import { startTemporal } from '../src/runtime/temporal-server';

/** `test/x.test.ts` (or `lib/test/x.test.js`, or a folder): the built file the test runner takes. */
function builtPath(root: string, given: string): string {
  const relativeToRepo = relative(join(root, '..'), resolve(given));
  if (relativeToRepo.startsWith('lib/') || relativeToRepo.startsWith('..')) return given;
  return join(root, relativeToRepo.replace(/\.ts$/, '.js'));
}

async function main(): Promise<number> {
  let server;
  try {
    server = await startTemporal({ uiPort: false });
  } catch (err) {
    process.stderr.write(`tests need a Temporal server and none could be had:\n${(err as Error).message}\n`);
    return 1;
  }
  process.stderr.write(`tests: Temporal at ${server.address}\n`);
  const root = join(__dirname, '..');
  // A file or folder may be named as in the source tree (`test/integration/cli.test.ts`) or as built.
  const named = process.argv.slice(2).map((n) => builtPath(root, n));
  const dirs = named.length
    ? named
    : [join(root, 'test', 'unit'), join(root, 'test', 'replay'), join(root, 'test', 'integration'), join(root, 'test', 'chaos')];
  const run = (args: string[]): Promise<number> =>
    new Promise<number>((resolveRun) => {
      const child = spawn(process.execPath, ['--test', '--test-force-exit', ...args], {
        stdio: 'inherit',
        env: { ...process.env, TEMPORAL_ADDRESS: server.address, BATON_LOG_LEVEL: process.env.BATON_LOG_LEVEL ?? 'warn' },
      });
      child.once('exit', (code, signal) => resolveRun(code ?? (signal ? 1 : 0)));
    });
  try {
    const timeout = named.some((n) => n.includes('conformance') || n.includes('/long')) ? '600000' : '180000';
    const code = await run(['--test-concurrency=2', `--test-timeout=${timeout}`, ...dirs]);
    if (named.length) return code;
    const long = await run(['--test-concurrency=1', '--test-timeout=600000', join(root, 'test', 'long')]);
    const conformance = await run(['--test-concurrency=1', '--test-timeout=600000', join(root, 'test', 'conformance')]);
    return code || long || conformance;
  } finally {
    await server.stop();
  }
}

void main().then((code) => {
  process.exitCode = code;
});
