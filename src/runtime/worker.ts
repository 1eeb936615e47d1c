/**
 * Builds a Baton worker: the workflow bundle, the activities with their dependencies, one task queue.
 */
import { Redactor } from '../secrets/redactor';
import { redactingStore } from '../secrets/redacting-store';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { DataConverter } from '@temporalio/common';
import { createActivities, sparseReadsPlugin, type ActivityDeps } from '../../activities';
import { MCP_CONNECTIONS_PLUGIN } from '../../activities/mcp-connections';
import { batonMetricSinks } from '../telemetry/workflow-metrics';
import { PolicyRegistry } from '../acceptance/policies';
import { configuredStore } from '../artifacts/configured-store';
import type { ArtifactStore } from '../artifacts/store';
import type { BatonConfig, DeploymentConfig } from '../config/schema';
import { dataConverterOption } from '../codec/data-converter';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import { meteredStore } from '../artifacts/metered-store';
import { activeTracing, type Tracing } from '../telemetry/tracing';
import { batonNexusHandler } from '../nexus/service-handler';
import type { CallerBudget } from '../limits/caller-budget';
import { configuredBudget, defaultBudget } from '../limits/configured-budget';
import type { ApiConfig } from '../config/schema';
import { BATON_PRELOADED_MODULES, freshWorkflowBundlePath, TRACING_INTERCEPTOR_MODULES, workflowsPath } from './bundle-workflows';

export interface BatonWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  config: Pick<BatonConfig, 'agents'> &
    Partial<Pick<BatonConfig, 'policies' | 'artifacts' | 'push' | 'worker' | 'encryption' | 'serve' | 'nexus' | 'api' | 'dataUse'>>;
  logger: Logger;
  /**
   * Extra acceptance policies beside the built-in ones.
   * @default the built-in policies and the config's declared ones only
   */
  policies?: PolicyRegistry;
  /**
   * Where artifact bytes go: an `ArtifactStore` of the application's own.
   * @default the store `artifacts` configures (a folder, or S3 checked at start so a wrong bucket fails here)
   */
  artifactStore?: ArtifactStore;
  /**
   * Prebuilt workflow code.
   * @default `lib/workflow-bundle.js` when setup built it and it is not older than the compiled
   * workflows, else the workflows are bundled at start (a few seconds)
   */
  workflowBundle?: { code: string } | { codePath: string };
  /**
   * With `nexus` in the config: each Nexus caller's budget (requests, work started, waits). The caller closes it.
   * @default `api.limits` in this process's memory (`baton worker` passes the configured store, shared with `baton ui`)
   */
  nexusBudget?: CallerBudget;
  /**
   * Passed to the activities (tests shorten the poll interval).
   * @default none: each setting's own default (ActivityDeps)
   */
  activityOverrides?: Partial<Pick<ActivityDeps, 'poll' | 'lookup' | 'cardTtlMs' | 'streamSilenceMs'>>;
  /**
   * Extra worker options (slots, shutdown grace; interceptors: tests on the time-skipping server hold its clock during activities).
   * @default none: the config's `worker` section and the SDK's defaults
   */
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

/**
 * With tracing on: the workflow spans of Baton's workflow interceptors (workflows/tracing-interceptors.ts,
 * named here when the worker bundles at start; a prebuilt traced bundle has them), leaving the
 * sandbox through the `exporter` sink, and the activity spans of Temporal's activity interceptors.
 * Merged with the caller's own interceptors and sinks.
 */
export function tracingOptions(
  tracing: Pick<Tracing, 'spanProcessor' | 'resource'> | undefined,
  given: WorkerOptions['interceptors'],
  bundling: boolean,
  givenSinks?: WorkerOptions['sinks'],
): Partial<WorkerOptions> {
  if (!tracing) return { ...(given ? { interceptors: given } : {}), ...(givenSinks ? { sinks: givenSinks } : {}) };
  return {
    interceptors: {
      ...given,
      // A prebuilt traced bundle has them already; a bundle made at start needs them named.
      ...(bundling ? { workflowModules: [...(given?.workflowModules ?? []), ...TRACING_INTERCEPTOR_MODULES] } : {}),
      activity: [
        ...(given?.activity ?? []),
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { ...givenSinks, exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}

/** The configured limits kept in this process (a store shared with other processes is the caller's to open and close). */
function memoryBudget(api: ApiConfig | undefined): CallerBudget {
  return api ? configuredBudget({ rateLimit: api.rateLimit, limits: { ...api.limits, store: undefined } }) : defaultBudget();
}

/**
 * With `nexus` in the config, the worker options that serve the Nexus service `baton` on the worker's
 * task queue beside `given` (docs/nexus.md); without it, none. For Baton's own worker and for an
 * application worker that embeds Baton alike.
 */
export function nexusServiceOptions(
  config: Pick<BatonConfig, 'agents'> & Partial<Pick<BatonConfig, 'nexus' | 'api' | 'dataUse'>>,
  o: {
    namespace: string;
    taskQueue: string;
    /** The worker's data converter, for the clients that read records. */
    dataConverter: DataConverter | undefined;
    /** @default `api.limits` in this process's memory */
    budget?: CallerBudget;
    logger: Logger;
    given?: WorkerOptions['nexusServices'];
  },
): Pick<WorkerOptions, 'nexusServices'> {
  if (!config.nexus) return {};
  const handler = batonNexusHandler({
    nexus: config.nexus,
    config,
    namespace: o.namespace,
    taskQueue: o.taskQueue,
    ...(o.dataConverter ? { clientOptions: { dataConverter: o.dataConverter } } : {}),
    budget: o.budget ?? memoryBudget(config.api),
    logger: o.logger.child({ component: 'nexus' }),
  });
  return { nexusServices: [...(o.given ?? []), handler] };
}

export async function createBatonWorker(opts: BatonWorkerOptions): Promise<Worker> {
  const tracing = activeTracing();
  const prebuilt = freshWorkflowBundlePath(tracing !== undefined);
  const bundled = opts.workflowBundle ?? (prebuilt ? { codePath: prebuilt } : undefined);
  if (!bundled) opts.logger.info('no fresh prebuilt workflow bundle (npm run build makes one); bundling the workflows now');
  const configured = opts.artifactStore ?? configuredStore(opts.config, opts.logger.child({ component: 'artifact-store' }));
  if ('check' in configured && typeof configured.check === 'function') await configured.check();
  // Bytes agents sent back hold no configured secret once stored, as inline ones hold none in history.
  const store = redactingStore(meteredStore(configured), Redactor.fromConfig(opts.config));
  const { interceptors, ...workerOptions } = opts.workerOptions ?? {};
  const activities = createActivities({
    config: opts.config,
    store,
    policies: (opts.policies ?? new PolicyRegistry()).declareAll(opts.config.policies ?? {}),
    logger: opts.logger.child({ component: 'activities' }),
    ...opts.activityOverrides,
  });
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    ...(bundled
      ? { workflowBundle: bundled }
      : {
          workflowsPath: workflowsPath(),
          bundlerOptions: { preloadModules: BATON_PRELOADED_MODULES },
        }),
    activities,
    shutdownGraceTime: '5s',
    ...dataConverterOption(opts.config),
    ...(opts.config.worker?.deployment ? { workerDeploymentOptions: deploymentOptions(opts.config.worker.deployment) } : {}),
    ...(opts.config.worker
      ? {
          maxCachedWorkflows: opts.config.worker.maxCachedWorkflows,
          maxConcurrentActivityTaskExecutions: opts.config.worker.maxConcurrentActivities,
        }
      : {}),
    ...workerOptions,
    ...tracingOptions(tracing, interceptors, !bundled, batonMetricSinks()),
    ...nexusServiceOptions(opts.config, {
      namespace: opts.namespace,
      taskQueue: opts.taskQueue,
      dataConverter: dataConverterOption(opts.config).dataConverter,
      budget: opts.nexusBudget,
      logger: opts.logger,
    }),
    plugins: [MCP_CONNECTIONS_PLUGIN, sparseReadsPlugin(activities)],
  });
}
