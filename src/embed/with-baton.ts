/**
 * One call that adds Baton to a user's own worker: Baton's activities beside theirs, and a workflows
 * entry that exports their workflows plus `delegationWorkflow`.
 */
import { batonMetricSinks } from '../telemetry/workflow-metrics';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { WorkerOptions } from '@temporalio/worker';
import type { Logger } from 'pino';
import { PRELOADED_MODULES } from '../runtime/bundle-workflows';
import { createActivities, sparseReadsPlugin } from '../../activities';
import { batonDataConverter } from '../codec/data-converter';
import { configuredStore } from '../artifacts/configured-store';
import type { ArtifactStore } from '../artifacts/store';
import { PolicyRegistry } from '../acceptance/policies';
import { ConfigError, loadConfig, parseConfig } from '../config/load';
import type { BatonConfig } from '../config/schema';
import { createLogger } from '../runtime/logger';
import { nexusServiceOptions, tracingOptions } from '../runtime/worker';
import { activeTracing, type Tracing } from '../telemetry/tracing';

export interface WithBatonOptions {
  /**
   * Baton's config: a path to a config file, an object of the config file's shape (validated the same
   * way), or a config already parsed.
   * @default `$BATON_CONFIG`, else `./baton.config.yaml` (as the CLI reads it)
   */
  config?: string | BatonConfig | Record<string, unknown>;
  /**
   * Where Baton's activities log.
   * @default pino on stderr at `$BATON_LOG_LEVEL` (info)
   */
  logger?: Logger;
  /**
   * Acceptance policies written in code, beside the built-in and the config's declared ones.
   * @default the built-in policies and the config's declared ones only
   */
  policies?: PolicyRegistry;
  /**
   * Where artifact bytes go, when the application keeps them itself.
   * @default the store the config's `artifacts` section configures
   */
  artifactStore?: ArtifactStore;
  /**
   * Trace the worker's workflows and activities (docs/observability.md): the span processor and
   * resource of the application's own OpenTelemetry SDK. A prebuilt `workflowBundle` must have been built with
   * `TRACING_INTERCEPTOR_MODULES` as its workflow interceptor modules.
   * @default what `startTracing` started in this process, else off
   */
  tracing?: Pick<Tracing, 'spanProcessor' | 'resource'>;
}

/** The config `withBaton` and the plugin use. */
export function configOf(given: WithBatonOptions['config']): BatonConfig {
  if (given === undefined) return loadConfig().config;
  if (typeof given === 'string') return loadConfig(given).config;
  return parseConfig(given, 'the config given to withBaton');
}

/**
 * Where the generated entry goes: the bundler resolves the Temporal workflow runtime from the entry's
 * folder, so it must sit where the user's own `@temporalio/workflow` is found (their node_modules).
 */
function entryFolder(userPath: string): string {
  try {
    const runtime = require.resolve('@temporalio/workflow', { paths: [dirname(userPath)] });
    const modules = runtime.slice(0, runtime.lastIndexOf(`${sep}node_modules${sep}`) + `${sep}node_modules`.length);
    return join(modules, '.cache', 'baton-workflows');
  } catch {
    return dirname(userPath);
  }
}

/**
 * A workflows entry file exporting everything from `userWorkflowsPath` and Baton's
 * `delegationWorkflow`. Use it with `bundleWorkflowCode` when you prebuild bundles; `withBaton`
 * calls it for `workflowsPath`. The file is written under `node_modules/.cache/baton-workflows`.
 */
export function batonWorkflowsPath(userWorkflowsPath: string): string {
  const user = isAbsolute(userWorkflowsPath) ? userWorkflowsPath : resolve(userWorkflowsPath);
  const baton = require.resolve('../../workflows/delegation');
  const graph = require.resolve('../../workflows/task-graph');
  const push = require.resolve('../../workflows/task-push');
  // An explicit export wins over `export *`, so a user file that already re-exports them is fine too.
  const code = [
    `export * from ${JSON.stringify(user)};`,
    `export { delegationWorkflow } from ${JSON.stringify(baton)};`,
    // Task graphs, for the Nexus service's runGraph (their nodes run on the graph's own task queue).
    `export { taskGraphWorkflow } from ${JSON.stringify(graph)};`,
    // The webhooks of served tasks, when this worker serves the application's own workflows.
    `export { taskPushWorkflow } from ${JSON.stringify(push)};`,
    '',
  ].join('\n');
  const dir = entryFolder(user);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `baton-entry-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.js`);
  writeFileSync(path, code);
  return path;
}

/**
 * Returns `options` with Baton added: its activities (refusing any name the user's activities already
 * use), for `workflowsPath` an entry that also exports Baton's workflows, and, when the config has a
 * `nexus` section, the Nexus service `baton` on this worker's task queue (docs/nexus.md). A prebuilt
 * `workflowBundle` is left alone: build it from `batonWorkflowsPath(yours)`.
 *
 * @example Worker.create(await withBaton({ connection, taskQueue: 'shop', workflowsPath, activities }))
 */
export async function withBaton(options: WorkerOptions, baton: WithBatonOptions = {}): Promise<WorkerOptions> {
  const config = configOf(baton.config);
  const policies = (baton.policies ?? new PolicyRegistry()).declareAll(config.policies);
  const logger = baton.logger ?? createLogger({ component: 'baton' });
  const ours = createActivities({ config, policies, logger, store: baton.artifactStore ?? configuredStore(config, logger) });
  const theirs = (options.activities ?? {}) as Record<string, unknown>;
  const clash = Object.keys(ours).filter((name) => name in theirs);
  if (clash.length) {
    throw new ConfigError(`withBaton: the worker already has activities named ${clash.join(', ')}`, [
      'rename yours, or run Baton on its own task queue (a Baton worker, and delegate({ taskQueue }))',
    ]);
  }
  // Payloads are encrypted as Baton's config says, unless the worker brings a data converter of its own.
  const dataConverter = options.dataConverter ?? batonDataConverter(config);
  const tracing = baton.tracing ?? activeTracing();
  return {
    ...options,
    ...tracingOptions(tracing, options.interceptors, options.workflowsPath !== undefined, { ...options.sinks, ...batonMetricSinks() }),
    ...(dataConverter ? { dataConverter } : {}),
    activities: { ...theirs, ...ours },
    ...nexusServiceOptions(config, {
      namespace: options.namespace ?? 'default',
      taskQueue: options.taskQueue,
      dataConverter,
      logger,
      given: options.nexusServices,
    }),
    // The sparse reads Baton's activities hold go back to Temporal when the worker stops (decision 0041).
    plugins: [...(options.plugins ?? []), sparseReadsPlugin(ours)],
    ...(options.workflowsPath
      ? {
          workflowsPath: batonWorkflowsPath(options.workflowsPath),
          bundlerOptions: {
            ...options.bundlerOptions,
            preloadModules: [...new Set([...(options.bundlerOptions?.preloadModules ?? []), ...PRELOADED_MODULES])],
          },
        }
      : {}),
  };
}
