/**
 * Jaeger (v2, all in one, spans kept in memory): the trace backend the tracing tests export to over
 * OTLP and read back through its query API. Built from the Go module proxy at a pinned version into
 * `.baton/tools/jaeger/<version>/` (git-ignored; a test tool, never shipped), run on private ports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/runtime/project-root';
import { ensureGoTool } from './go-tool';
import { freePort } from '../src/runtime/free-port';

export const JAEGER_VERSION = 'v1.75.0';

/** The binary, built first when missing (about 3.5 minutes on two cores; `log` hears of it). */
export function ensureJaegerBinary(version = JAEGER_VERSION, log: (line: string) => void = () => {}): string {
  return ensureGoTool({
    tool: 'Jaeger',
    pkg: 'github.com/jaegertracing/jaeger/cmd/jaeger',
    version,
    dir: join(projectRoot(), '.baton', 'tools', 'jaeger', version),
    binary: 'jaeger',
    log,
    took: 'about 3.5 minutes',
  });
}

export interface RunningJaeger {
  /** OTLP/HTTP base URL (`http://127.0.0.1:<port>`): spans go to `/v1/traces`. */
  otlpEndpoint: string;
  /** The query API's base URL (`/api/traces`, `/api/services`). */
  queryUrl: string;
  pid(): number | undefined;
  stop(): Promise<void>;
}

function configYaml(otlp: number, query: number, queryGrpc: number): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memory_store:
        memory:
          max_traces: 100000
  jaeger_query:
    storage:
      traces: memory_store
    http:
      endpoint: 127.0.0.1:${query}
    grpc:
      endpoint: 127.0.0.1:${queryGrpc}
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${otlp}
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memory_store
`;
}

/** Starts Jaeger with its config and log in `dir`. */
export async function startJaeger(dir: string, log: (line: string) => void = () => {}): Promise<RunningJaeger> {
  const binary = ensureJaegerBinary(undefined, log);
  mkdirSync(dir, { recursive: true });
  const [otlp, query, queryGrpc] = [await freePort(), await freePort(), await freePort()];
  const config = join(dir, 'jaeger.yaml');
  writeFileSync(config, configYaml(otlp, query, queryGrpc));
  const out = openSync(join(dir, 'jaeger.log'), 'a');
  const child: ChildProcess = spawn(binary, ['--config', `file:${config}`], { stdio: ['ignore', out, out] });
  let exited = false;
  // A test that times out is ended with process.exit (--test-force-exit): take Jaeger along.
  const orphaned = (): void => void child.kill('SIGKILL');
  process.once('exit', orphaned);
  child.once('exit', () => {
    exited = true;
    process.off('exit', orphaned);
  });
  const queryUrl = `http://127.0.0.1:${query}`;
  const otlpEndpoint = `http://127.0.0.1:${otlp}`;
  const until = Date.now() + 30_000;
  for (;;) {
    if (exited) throw new Error(`Jaeger exited while starting (log: ${join(dir, 'jaeger.log')})`);
    const up = await Promise.all([
      fetch(`${queryUrl}/api/services`).then(
        (r) => r.ok,
        () => false,
      ),
      // The OTLP receiver answers 405 to a GET once it listens.
      fetch(`${otlpEndpoint}/v1/traces`).then(
        () => true,
        () => false,
      ),
    ]);
    if (up.every(Boolean)) break;
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`Jaeger did not answer on ${queryUrl} and ${otlpEndpoint} within 30 s (log: ${join(dir, 'jaeger.log')})`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    otlpEndpoint,
    queryUrl,
    pid: () => child.pid,
    stop: async () => {
      if (exited) return;
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      await gone;
    },
  };
}
