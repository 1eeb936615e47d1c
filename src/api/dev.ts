/**
 * `baton/dev`: a Temporal server for tests and local runs, found the way `baton dev` finds one
 * (TEMPORAL_ADDRESS, TEMPORAL_CLI_PATH, `temporal` on PATH, the project's install, the SDK download).
 */
export {
  startTemporal,
  findTemporal,
  describeSource,
  TemporalUnavailableError,
  type RunningServer,
  type DevServerOptions,
} from '../runtime/temporal-server';
