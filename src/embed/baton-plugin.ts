/**
 * Baton as a Temporal worker plugin (the SDK's `plugins` worker option): the same pieces `withBaton`
 * adds (Baton's activities beside yours, a workflows entry that also exports `delegationWorkflow`, the
 * modules the bundle preloads), plus the search attribute check Baton's own worker makes, so a worker
 * on a namespace that is not set up fails at once with one line naming `baton setup`.
 */
import type { BundleOptions, BundlerPlugin, ReplayWorkerOptions, Worker, WorkerOptions, WorkerPlugin } from '@temporalio/worker';
import { MCP_CONNECTIONS_PLUGIN } from '../../activities/mcp-connections';
import { PRELOADED_MODULES } from '../runtime/bundle-workflows';
import { requireSearchAttributes } from '../client/namespace-setup';
import { batonDataConverter } from '../codec/data-converter';
import { batonWorkflowsPath, configOf, withBaton, type WithBatonOptions } from './with-baton';

export interface BatonPluginOptions extends WithBatonOptions {
  /**
   * Check the namespace has Baton's search attributes before the worker starts.
   * @default true: every delegation sets them, and a start without them fails
   */
  checkSearchAttributes?: boolean;
}

const ENTRY = /baton-entry-[0-9a-f]{16}\.js$/;

/** A workflows path with Baton's entry around it (left alone when it is one already). */
const entryFor = (path: string): string => (ENTRY.test(path) ? path : batonWorkflowsPath(path));
const preload = (modules: string[] | undefined): string[] => [...new Set([...(modules ?? []), ...PRELOADED_MODULES])];

export class BatonPlugin implements WorkerPlugin, BundlerPlugin {
  readonly name = 'baton';

  constructor(private readonly options: BatonPluginOptions = {}) {}

  async configureWorker(options: WorkerOptions): Promise<WorkerOptions> {
    if (this.options.checkSearchAttributes !== false && options.connection) {
      await requireSearchAttributes(options.connection, options.namespace ?? 'default');
    }
    return withBaton(options, this.options);
  }

  /** Closes the MCP connections Baton's activities kept, once the worker stopped. */
  runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
    return MCP_CONNECTIONS_PLUGIN.runWorker(worker, next);
  }

  configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    // Encrypted histories replay only through the same keys.
    const dataConverter = options.dataConverter ?? batonDataConverter(configOf(this.options.config));
    if (dataConverter) options = { ...options, dataConverter };
    if (!options.workflowsPath) return options;
    return {
      ...options,
      workflowsPath: entryFor(options.workflowsPath),
      bundlerOptions: { ...options.bundlerOptions, preloadModules: preload(options.bundlerOptions?.preloadModules) },
    };
  }

  configureBundler(options: BundleOptions): BundleOptions {
    return { ...options, workflowsPath: entryFor(options.workflowsPath), preloadModules: preload(options.preloadModules) };
  }
}

/**
 * Baton's worker pieces as a plugin.
 *
 * @example Worker.create({ connection, taskQueue, workflowsPath, activities, plugins: [batonPlugin({ config })] })
 */
export function batonPlugin(options: BatonPluginOptions = {}): BatonPlugin {
  return new BatonPlugin(options);
}
