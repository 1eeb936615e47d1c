/**
 * pino for everything Node-side: JSON on stderr (stdout stays clean for `--json` output), pretty
 * when stderr is a terminal. Temporal's own logs go through the same logger.
 */
import pino, { type Logger } from 'pino';
import { Runtime, makeTelemetryFilterString, type LogLevel, type LogMetadata, type Logger as TemporalLogger } from '@temporalio/worker';
import { ConfigError } from '../config/config-error';
import { HISTOGRAM_BUCKETS, useMetricMeter } from '../telemetry/metrics';

/** `BATON_LOG_LEVEL` (default info). */
export function createLogger(bindings: Record<string, unknown> = {}): Logger {
  const level = process.env.BATON_LOG_LEVEL ?? 'info';
  const pretty = process.stderr.isTTY && process.env.BATON_LOG_FORMAT !== 'json';
  const logger = pretty
    ? pino({ level }, pino.transport({ target: 'pino-pretty', options: { destination: 2, ignore: 'pid,hostname' } }))
    : pino({ level }, pino.destination(2));
  return Object.keys(bindings).length ? logger.child(bindings) : logger;
}

/** Adapts pino to Temporal's Logger (level first, message before fields). */
export function toTemporalLogger(logger: Logger): TemporalLogger {
  const log = (level: LogLevel, message: string, meta: LogMetadata = {}): void => {
    const fields: Record<string, unknown> = { ...meta };
    const lvl = level.toLowerCase() as 'trace' | 'debug' | 'info' | 'warn' | 'error';
    logger[lvl](fields, message);
  };
  return {
    log,
    trace: (m, x) => log('TRACE', m, x),
    debug: (m, x) => log('DEBUG', m, x),
    info: (m, x) => log('INFO', m, x),
    warn: (m, x) => log('WARN', m, x),
    error: (m, x) => log('ERROR', m, x),
  };
}

let installed = false;

export interface RuntimeOptions {
  /**
   * `ip:port` for a Prometheus endpoint (`GET /metrics`) with the SDK's metrics and Baton's
   * (`telemetry.metrics.worker`, `.ui`, `.webhook` or `.serve`). Default: no endpoint.
   */
  metrics?: string;
  /** The setting `metrics` came from, named when the address cannot be used. Default `telemetry.metrics`. */
  metricsSetting?: string;
}

/**
 * Routes the SDK's and the Rust core's logs into pino, and exports metrics when asked. Once per
 * process, before any worker (a later call changes nothing: the Runtime is the process's).
 */
export function installTemporalRuntime(logger: Logger, opts: RuntimeOptions = {}): void {
  if (installed) return;
  try {
    installRuntime(logger, opts);
  } catch (err) {
    if (!opts.metrics) throw err;
    // The Runtime's own words ("Address already in use (os error 98)") after what to change.
    throw new ConfigError(
      `${opts.metricsSetting ?? 'telemetry.metrics'}: the metrics endpoint cannot listen on ${opts.metrics} (${(err as Error).message.replace(/^Failed to start prometheus metrics exporter: /, '')}): choose another address`,
    );
  }
  installed = true;
  if (opts.metrics) {
    useMetricMeter(Runtime.instance().metricMeter);
    logger.info({ metrics: `http://${opts.metrics}/metrics` }, 'metrics endpoint listening');
  }
}

/**
 * Stops the Runtime of a process that runs no worker and installed it only to export metrics
 * (`baton ui`, `baton webhook`, `baton serve`): its exporter thread would keep the process alive
 * after the command closed everything else. A worker's process needs none of this (the Runtime
 * stops with its last worker).
 */
export async function releaseTemporalRuntime(): Promise<void> {
  if (!installed) return;
  installed = false;
  useMetricMeter(undefined);
  await Runtime.instance().shutdown();
}

function installRuntime(logger: Logger, opts: RuntimeOptions): void {
  Runtime.install({
    logger: toTemporalLogger(logger.child({ component: 'temporal' })),
    telemetryOptions: {
      logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN' }) },
      ...(opts.metrics
        ? {
            metrics: {
              prometheus: {
                bindAddress: opts.metrics,
                countersTotalSuffix: true,
                useSecondsForDurations: true,
                histogramBucketOverrides: HISTOGRAM_BUCKETS,
              },
            },
          }
        : {}),
    },
  });
}
