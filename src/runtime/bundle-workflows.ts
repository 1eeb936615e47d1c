/**
 * Builds the workflow bundle once (setup), so workers start without running webpack.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { projectRoot } from './project-root';

/** Where setup writes the bundle and workers read it. */
export function workflowBundlePath(): string {
  return join(projectRoot(), 'lib', 'workflow-bundle.js');
}

/** The workflows entry point, compiled or source, next to this file's own tree. */
export function workflowsPath(): string {
  return require.resolve('../../workflows');
}

export async function buildWorkflowBundle(): Promise<string> {
  const { code } = await bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: quietLogger });
  return code;
}

const noop = (): void => {};
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

if (require.main === module) {
  void (async () => {
    const code = await buildWorkflowBundle();
    const out = workflowBundlePath();
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, code);
    console.error(`setup: workflow bundle written to ${out} (${(code.length / 1024 / 1024).toFixed(2)} MiB)`);
  })().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
