/**
 * Builds a Baton worker: the workflow bundle, the activities with their dependencies, one task queue.
 */
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createActivities, type ActivityDeps } from '../../activities';
import { PolicyRegistry } from '../acceptance/policies';
import { configuredStore } from '../artifacts/configured-store';
import type { ArtifactStore } from '../artifacts/store';
import type { BatonConfig, DeploymentConfig } from '../config/schema';
import { dataConverterOption } from '../codec/data-converter';
import { freshWorkflowBundlePath, PRELOADED_MODULES, workflowsPath } from './bundle-workflows';

export interface BatonWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  config: Pick<BatonConfig, 'agents'> & Partial<Pick<BatonConfig, 'policies' | 'artifacts' | 'push' | 'worker' | 'encryption' | 'serve'>>;
  logger: Logger;
  /** Extra acceptance policies beside the built-in ones. */
  policies?: PolicyRegistry;
  /**
   * Where artifact bytes go: an `ArtifactStore` of the application's own. Default: the store
   * `artifacts` configures (a folder, or S3 checked at start so a wrong bucket fails here).
   */
  artifactStore?: ArtifactStore;
  /**
   * Prebuilt workflow code. Default: `lib/workflow-bundle.js` when setup built it and it is not older
   * than the compiled workflows, else the workflows are bundled at start (a few seconds).
   */
  workflowBundle?: { code: string } | { codePath: string };
  /** Passed to the activities (tests shorten the poll interval). */
  activityOverrides?: Partial<Pick<ActivityDeps, 'poll' | 'lookup' | 'cardTtlMs' | 'streamSilenceMs'>>;
  /** Extra worker options (slots, shutdown grace; interceptors: tests on the time-skipping server hold its clock during activities). */
  workerOptions?: Partial<
    Pick<
      WorkerOptions,
      'maxConcurrentActivityTaskExecutions' | 'maxConcurrentWorkflowTaskExecutions' | 'shutdownGraceTime' | 'interceptors'
    >
  >;
}

/** The SDK's Worker Versioning options for a configured deployment. */
export function deploymentOptions(d: DeploymentConfig): NonNullable<WorkerOptions['workerDeploymentOptions']> {
  return {
    useWorkerVersioning: true,
    version: { deploymentName: d.name, buildId: d.buildId },
    defaultVersioningBehavior: d.behavior === 'pinned' ? 'PINNED' : 'AUTO_UPGRADE',
  };
}

export async function createBatonWorker(opts: BatonWorkerOptions): Promise<Worker> {
  const prebuilt = freshWorkflowBundlePath();
  const bundled = opts.workflowBundle ?? (prebuilt ? { codePath: prebuilt } : undefined);
  if (!bundled) opts.logger.info('no fresh prebuilt workflow bundle (npm run build makes one); bundling the workflows now');
  const store = opts.artifactStore ?? configuredStore(opts.config, opts.logger.child({ component: 'artifact-store' }));
  if ('check' in store && typeof store.check === 'function') await store.check();
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    ...(bundled ? { workflowBundle: bundled } : { workflowsPath: workflowsPath(), bundlerOptions: { preloadModules: PRELOADED_MODULES } }),
    activities: createActivities({
      config: opts.config,
      store,
      policies: (opts.policies ?? new PolicyRegistry()).declareAll(opts.config.policies ?? {}),
      logger: opts.logger.child({ component: 'activities' }),
      ...opts.activityOverrides,
    }),
    shutdownGraceTime: '5s',
    ...dataConverterOption(opts.config),
    ...(opts.config.worker?.deployment ? { workerDeploymentOptions: deploymentOptions(opts.config.worker.deployment) } : {}),
    ...(opts.config.worker
      ? {
          maxCachedWorkflows: opts.config.worker.maxCachedWorkflows,
          maxConcurrentActivityTaskExecutions: opts.config.worker.maxConcurrentActivities,
        }
      : {}),
    ...opts.workerOptions,
  });
}
