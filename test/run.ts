/**
 * The test command: one Temporal dev server for the whole run (unless TEMPORAL_ADDRESS names one),
 * then node's test runner over every unit and integration test, in parallel processes. A test that
 * hangs fails after 3 minutes instead of holding the run.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startTemporal } from '../src/runtime/temporal-server';

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
  const dirs = process.argv.slice(2).length
    ? process.argv.slice(2)
    : [join(root, 'test', 'unit'), join(root, 'test', 'replay'), join(root, 'test', 'integration'), join(root, 'test', 'chaos')];
  try {
    return await new Promise<number>((resolveRun) => {
      const child = spawn(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=180000', '--test-force-exit', ...dirs], {
        stdio: 'inherit',
        env: { ...process.env, TEMPORAL_ADDRESS: server.address, BATON_LOG_LEVEL: process.env.BATON_LOG_LEVEL ?? 'warn' },
      });
      child.once('exit', (code, signal) => resolveRun(code ?? (signal ? 1 : 0)));
    });
  } finally {
    await server.stop();
  }
}

void main().then((code) => {
  process.exitCode = code;
});
