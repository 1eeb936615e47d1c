/**
 * What a workflow's MCP tool call costs (`npm run bench -- --mcp`): one workflow that looks an order up,
 * sampled in turn in the same run as a plain activity, through `callMcpTool` on a stdio server (started
 * for each call, as shipped), and through `callMcpTool` on a Streamable HTTP server on loopback.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import pino from 'pino';
import { closeMcpConnections } from '../activities/mcp-connections';
import { withBaton } from '../src/embed/with-baton';
import { connectTemporalWorker } from '../src/runtime/connect';
import { serveToolsOverHttp } from '../infra/mcp-tool-server';
import * as activities from './activities';
import { quantile, withSection, writeSection, type ReportSection, type ServerKind } from './report-section';
import { localLookupWorkflow, mcpLookupWorkflow } from './mcp-workflows';

const KINDS = ['activity', 'stdio', 'stdio-per-call', 'http', 'http-per-call'] as const;
type Kind = (typeof KINDS)[number];

export interface McpFigures {
  date: string;
  command: string;
  samples: number;
  /** Workflow start to result, ms. */
  latency: Record<Kind, { p50: number; p99: number }>;
}

export interface McpOptions {
  client: Client;
  /** Where the worker connects: the dev server's address, or the cluster as the environment names it. */
  target: Parameters<typeof connectTemporalWorker>[0];
  namespace: string;
  samples: number;
  say: (line: string) => void;
}

export async function measureMcpTools(o: McpOptions): Promise<Omit<McpFigures, 'date' | 'command'>> {
  const http = await serveToolsOverHttp();
  const taskQueue = `bench-mcp-${randomUUID()}`;
  const connection = await connectTemporalWorker(o.target);
  const quiet = pino({ level: 'error' }, pino.destination(2));
  const servers = {
    stdio: { command: process.execPath, args: [require.resolve('../infra/mcp-tool-server')], tools: ['lookup_order'] },
    http: { url: http.url, allowHttp: true, allowPrivateNetwork: true, tools: ['lookup_order'] },
  };
  const perCall = {
    'stdio-per-call': { ...servers.stdio, keepAliveMs: 0 },
    'http-per-call': { ...servers.http, keepAliveMs: 0 },
  };
  try {
    const options = await withBaton(
      { connection, namespace: o.namespace, taskQueue, workflowsPath: require.resolve('./mcp-workflows'), activities },
      { config: { agents: {}, mcp: { servers: { ...servers, ...perCall } } }, logger: quiet },
    );
    const worker = await Worker.create(options);
    const lat: Record<Kind, number[]> = { activity: [], stdio: [], 'stdio-per-call': [], http: [], 'http-per-call': [] };
    await worker.runUntil(async () => {
      const once = async (kind: Kind): Promise<number> => {
        const t = performance.now();
        const workflowId = `bench-mcp-${randomUUID()}`;
        const orderId = 'A1042';
        if (kind === 'activity') await o.client.workflow.execute(localLookupWorkflow, { workflowId, taskQueue, args: [orderId] });
        else await o.client.workflow.execute(mcpLookupWorkflow, { workflowId, taskQueue, args: [{ server: kind, orderId }] });
        return performance.now() - t;
      };
      for (const k of KINDS) await once(k); // warm-up: bundles, caches, the first spawn
      for (let i = 0; i < o.samples; i++) {
        // Each round starts with another kind, so no kind always follows the same one.
        for (let j = 0; j < KINDS.length; j++) {
          const k = KINDS[(i + j) % KINDS.length] as Kind;
          lat[k].push(await once(k));
        }
        if ((i + 1) % 50 === 0) o.say(`  ${i + 1} of ${o.samples}`);
      }
    });
    const of = (k: Kind) => ({ p50: quantile(lat[k], 0.5), p99: quantile(lat[k], 0.99) });
    return { samples: o.samples, latency: Object.fromEntries(KINDS.map((k) => [k, of(k)])) as McpFigures['latency'] };
  } finally {
    closeMcpConnections();
    await connection.close();
    await http.close();
  }
}

const row = (f: McpFigures, k: Kind): string => {
  const { p50, p99 } = f.latency[k];
  const over = p50 - f.latency.activity.p50;
  const extra = k === 'activity' ? '' : ` (${over >= 0 ? '+' : '−'}${Math.abs(over).toFixed(0)} ms)`;
  return `${p50.toFixed(0)} / ${p99.toFixed(0)} ms${extra}`;
};

const SECTION: ReportSection<McpFigures> = {
  name: 'mcp',
  marks: ['<!-- mcp tools: written by bench/mcp-tools.ts -->', '<!-- end of mcp tools -->'],
  after: '<!-- end of telemetry -->',
  heading: [
    '## What a workflow’s MCP tool call costs (docs/mcp.md)',
    '',
    'One workflow that looks an order up, sampled in turn in the same run: by a plain activity of the worker; through `callMcpTool` on a stdio MCP server (a Node process) and on a Streamable HTTP server on loopback, each with its connection kept between calls (`keepAliveMs`, as shipped) and with a fresh one per call (`keepAliveMs: 0`: start or connect, initialize, list tools, call, close). Workflow start to result, p50 / p99 (p50 over the plain activity).',
  ],
  rows: [
    ['samples of each', (f) => String(f.samples)],
    ['plain activity', (f) => row(f, 'activity')],
    ['`callMcpTool`, stdio server, connection kept', (f) => row(f, 'stdio')],
    ['`callMcpTool`, stdio server started per call', (f) => row(f, 'stdio-per-call')],
    ['`callMcpTool`, Streamable HTTP, connection kept', (f) => row(f, 'http')],
    ['`callMcpTool`, Streamable HTTP, connected per call', (f) => row(f, 'http-per-call')],
  ],
};

export const writeMcp = (out: string, kind: ServerKind, figures: McpFigures): void => writeSection(out, SECTION, kind, figures);
export const withMcpSection = (out: string, text: string): string => withSection(out, SECTION, text);
