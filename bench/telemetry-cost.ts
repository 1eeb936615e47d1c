/**
 * What traces and metrics cost: the same delegation (an agent that completes at once) on three
 * `baton worker` processes as shipped, one with telemetry off, one exporting traces over OTLP, one
 * with its metrics endpoint on, sampled in turn in the same run. The OTLP receiver is a small sink
 * in this process that counts what arrives (a collector's own cost is the collector's).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { BatonClient } from '../src/client/baton-client';
import { startAgentServer } from '../src/demo/agent-server';
import { bookingDesk } from '../src/demo/trip-agents';
import { freePort } from '../src/runtime/free-port';
import { watchedWorker } from './parked';
import { quantile, withSection, writeSection, type ReportSection, type ServerKind } from './report-section';

interface Variant {
  p50: number;
  p99: number;
  /** Worker CPU (its process tree) per delegation, ms. */
  cpuMs: number;
}

export interface TelemetryFigures {
  date: string;
  command: string;
  samples: number;
  off: Variant;
  traces: Variant & { spansPerDelegation: number; otlpBytesPerDelegation: number };
  metrics: Variant;
}

export interface TelemetryOptions {
  client: Client;
  address: string;
  namespace: string;
  samples: number;
  say(line: string): void;
}

/** An OTLP/HTTP receiver that takes everything and counts spans and bytes. */
async function otlpSink(): Promise<{ url: string; spans(): number; bytes(): number; close(): void }> {
  let spans = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      bytes += body.length;
      try {
        const sent = JSON.parse(body.toString('utf8')) as { resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[] };
        for (const r of sent.resourceSpans ?? []) for (const s of r.scopeSpans ?? []) spans += s.spans?.length ?? 0;
      } catch {
        // not JSON: counted in bytes only
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => spans,
    bytes: () => bytes,
    close: () => server.close(),
  };
}

export async function measureTelemetryCost(o: TelemetryOptions): Promise<Omit<TelemetryFigures, 'date' | 'command'>> {
  const agent = await startAgentServer({ ...bookingDesk('instant', 'Completes at once', { workMs: 0 }), streaming: true });
  const sink = await otlpSink();
  const entry = `  instant: { card: "${agent.url}", allowHttp: true, allowPrivateNetwork: true, acceptance: accept-any }`;
  const workers = {
    off: await watchedWorker('bench-telemetry-off', o.address, ['agents:', entry]),
    traces: await watchedWorker('bench-telemetry-traces', o.address, [
      'agents:',
      entry,
      `telemetry: { traces: { endpoint: "${sink.url}" } }`,
    ]),
    metrics: await watchedWorker('bench-telemetry-metrics', o.address, [
      'agents:',
      entry,
      `telemetry: { metrics: { worker: "127.0.0.1:${await freePort()}" } }`,
    ]),
  };
  const kinds = ['off', 'traces', 'metrics'] as const;
  const clients = Object.fromEntries(
    kinds.map((k) => [
      k,
      new BatonClient(o.client.connection, {
        namespace: o.namespace,
        taskQueue: workers[k].queue,
        caller: { tenant: 'bench', user: 'bench' },
      }),
    ]),
  ) as Record<(typeof kinds)[number], BatonClient>;
  const once = async (k: (typeof kinds)[number]): Promise<number> => {
    const t = performance.now();
    const b = clients[k];
    await b.result(await b.start({ agent: 'instant', parts: [{ text: `book it ${randomUUID()}` }] }));
    return performance.now() - t;
  };
  try {
    for (const k of kinds) for (let i = 0; i < 5; i++) await once(k);
    const spansBefore = sink.spans();
    const bytesBefore = sink.bytes();
    const cpuBefore = Object.fromEntries(kinds.map((k) => [k, workers[k].cpuSeconds()]));
    const lat: Record<string, number[]> = { off: [], traces: [], metrics: [] };
    for (let i = 0; i < o.samples; i++) {
      // In turn, and in a rotating order, so a slow moment of the machine falls on each alike.
      for (let j = 0; j < kinds.length; j++) {
        const k = kinds[(i + j) % kinds.length] as (typeof kinds)[number];
        lat[k]?.push(await once(k));
      }
      if ((i + 1) % 50 === 0) o.say(`  ${i + 1}/${o.samples}`);
    }
    // The batch processor sends every half second: wait for the last batch before counting.
    await new Promise((r) => setTimeout(r, 1_500));
    const variant = (k: (typeof kinds)[number]): Variant => ({
      p50: quantile(lat[k] ?? [], 0.5),
      p99: quantile(lat[k] ?? [], 0.99),
      cpuMs: ((workers[k].cpuSeconds() - (cpuBefore[k] ?? 0)) * 1000) / o.samples,
    });
    return {
      samples: o.samples,
      off: variant('off'),
      traces: {
        ...variant('traces'),
        spansPerDelegation: (sink.spans() - spansBefore) / o.samples,
        otlpBytesPerDelegation: (sink.bytes() - bytesBefore) / o.samples,
      },
      metrics: variant('metrics'),
    };
  } finally {
    for (const k of kinds) await workers[k].stop();
    sink.close();
    await agent.close();
  }
}

const pct = (a: number, b: number): string => `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(0)} %`;

const SECTION: ReportSection<TelemetryFigures> = {
  name: 'telemetry',
  marks: ['<!-- telemetry: written by bench/telemetry-cost.ts -->', '<!-- end of telemetry -->'],
  after: '<!-- end of served agents -->',
  heading: [
    '## What traces and metrics cost (docs/observability.md)',
    '',
    'One delegation to an agent that completes at once, on three `baton worker` processes as shipped, sampled in turn in the same run: telemetry off; traces exported over OTLP/HTTP (to a sink in the benchmark process that counts spans and bytes); the Prometheus endpoint on. The client has no tracer of its own, so the figures are the worker’s cost.',
  ],
  rows: [
    ['samples of each', (f) => String(f.samples)],
    [
      'telemetry off: p50 / p99, worker CPU per delegation',
      (f) => `${f.off.p50.toFixed(0)} / ${f.off.p99.toFixed(0)} ms, ${f.off.cpuMs.toFixed(1)} ms`,
    ],
    [
      'traces on: p50 / p99 (p50 against off), worker CPU per delegation',
      (f) =>
        `${f.traces.p50.toFixed(0)} / ${f.traces.p99.toFixed(0)} ms (${pct(f.traces.p50, f.off.p50)}), ${f.traces.cpuMs.toFixed(1)} ms`,
    ],
    [
      'traces on: spans and OTLP bytes per delegation',
      (f) => `${f.traces.spansPerDelegation.toFixed(1)} spans, ${(f.traces.otlpBytesPerDelegation / 1024).toFixed(1)} KiB`,
    ],
    [
      'metrics on: p50 / p99 (p50 against off), worker CPU per delegation',
      (f) =>
        `${f.metrics.p50.toFixed(0)} / ${f.metrics.p99.toFixed(0)} ms (${pct(f.metrics.p50, f.off.p50)}), ${f.metrics.cpuMs.toFixed(1)} ms`,
    ],
  ],
};

export const writeTelemetry = (out: string, kind: ServerKind, figures: TelemetryFigures): void => writeSection(out, SECTION, kind, figures);
export const withTelemetrySection = (out: string, text: string): string => withSection(out, SECTION, text);
