/**
 * Builds the workflow bundle once (setup), so workers start without running webpack.
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { projectRoot } from './project-root';

/** Where setup writes the bundle and workers read it; `traced`: the one with OpenTelemetry's workflow interceptors. */
export function workflowBundlePath(traced = false): string {
  return join(projectRoot(), 'lib', traced ? 'workflow-bundle-traced.js' : 'workflow-bundle.js');
}

/**
 * OpenTelemetry's workflow interceptors (as workflows/tracing-interceptors.ts adapts them): a span for
 * the workflow, each activity and local activity, sent out of the sandbox through a sink. In a bundle
 * of their own, so a worker without tracing runs no tracing code (and needs no sink) in its workflows.
 */
export const TRACING_INTERCEPTOR_MODULES = [require.resolve('../../workflows/tracing-interceptors')];

/** The workflows entry point, compiled or source, next to this file's own tree. */
export function workflowsPath(): string {
  return require.resolve('../../workflows');
}

/** Newest modification time of the compiled files a bundle is made from. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.js')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * The prebuilt bundle when it is at least as new as the compiled workflows and shared code; undefined
 * when it is missing or stale (after a `tsc` without `npm run build`), so the worker bundles afresh.
 */
export function freshWorkflowBundlePath(traced = false): string | undefined {
  const bundle = workflowBundlePath(traced);
  if (!existsSync(bundle)) return undefined;
  const lib = dirname(bundle);
  const sources = [join(lib, 'workflows'), join(lib, 'src', 'shared')].filter((d) => existsSync(d));
  const newest = Math.max(0, ...sources.map(newestSource));
  return statSync(bundle).mtimeMs >= newest ? bundle : undefined;
}

/**
 * 👉 In a reusable V8 context every workflow evaluates the bundle's modules afresh (module state is
 * per workflow), except preloaded ones, which are evaluated once and shared (and frozen). zod holds
 * no per-workflow state and is most of the bundle's code: evaluated per workflow it costs each new
 * or replayed delegation CPU time and the worker hundreds of MiB of garbage under load.
 */
export const PRELOADED_MODULES = [require.resolve('../shared/zod-preload')];

/**
 * Preloaded by Baton's own workers only (`baton worker`, its prebuilt bundles): stack traces in the
 * workflow sandbox keep their innermost frames, which cuts what the SDK's per-promise stack trace
 * costs (workflows/stack-trace-limit.ts, decision 0029). Add it to an embedding worker's
 * `preloadModules` for the same saving; without it, its workflows keep the SDK's ten frames.
 */
export const STACK_TRACE_LIMIT_MODULES = [require.resolve('../../workflows/stack-trace-limit')];

/** What Baton's own bundles preload: zod, and the stack trace limit. */
export const BATON_PRELOADED_MODULES = [...PRELOADED_MODULES, ...STACK_TRACE_LIMIT_MODULES];

/**
 * Bundles workflow code quietly. Defaults: Baton's workflows with Baton's preloaded modules, as setup
 * writes them; `traced` adds the tracing interceptors. Tests and benchmarks name other entries or preloads.
 */
export async function buildWorkflowBundle(
  opts: { traced?: boolean; workflowsPath?: string; preloadModules?: string[] } = {},
): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: opts.workflowsPath ?? workflowsPath(),
    logger: quietLogger,
    preloadModules: opts.preloadModules ?? BATON_PRELOADED_MODULES,
    ...(opts.traced ? { workflowInterceptorModules: TRACING_INTERCEPTOR_MODULES } : {}),
  });
  return code;
}

const noop = (): void => {};
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

if (require.main === module) {
  void (async () => {
    for (const traced of [false, true]) {
      const code = await buildWorkflowBundle({ traced });
      const out = workflowBundlePath(traced);
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, code);
      console.error(`setup: workflow bundle written to ${out} (${(code.length / 1024 / 1024).toFixed(2)} MiB)`);
    }
  })().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
