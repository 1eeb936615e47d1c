/**
 * pino for everything Node-side: JSON on stderr (stdout stays clean for `--json` output), pretty
 * when stderr is a terminal. Temporal's own logs go through the same logger.
 */
import pino, { type Logger } from 'pino';
import { Runtime, makeTelemetryFilterString, type LogLevel, type LogMetadata, type Logger as TemporalLogger } from '@temporalio/worker';
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
   * `host:port` for a Prometheus endpoint (`GET /metrics`) with the SDK's metrics and Baton's
   * (`telemetry.metrics.worker`, `.ui` or `.webhook`). Default: no endpoint.
   */
  metrics?: string;
}

/**
 * Routes the SDK's and the Rust core's logs into pino, and exports metrics when asked. Once per
 * process, before any worker (a later call changes nothing: the Runtime is the process's).
 */
export function installTemporalRuntime(logger: Logger, opts: RuntimeOptions = {}): void {
  if (installed) return;
  installed = true;
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
  if (opts.metrics) {
    useMetricMeter(Runtime.instance().metricMeter);
    logger.info({ metrics: `http://${opts.metrics}/metrics` }, 'metrics endpoint listening');
  }
}
