/**
 * What a delegation through Nexus costs against the same delegation started directly (docs/nexus.md):
 * one `baton worker` process as shipped, serving the `baton` service behind an endpoint `setup --nexus`
 * would make; a caller workflow in another namespace runs one `delegate` operation to its end. Samples
 * alternate between the two paths. Three spans: a direct start and result from a client; the caller
 * workflow from its start to its result (what an application in another namespace waits); and the
 * operation itself, from its scheduled to its completed event in the caller's history.
 */
import { randomUUID } from 'node:crypto';
import { Client, type Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { BatonClient } from '../src/client/baton-client';
import { ensureNamespace } from '../src/client/namespace-setup';
import { startAgentServer } from '../src/demo/agent-server';
import { supplierQa } from '../src/demo/supplier-qa';
import { ensureNexusEndpoint } from '../src/nexus/endpoint-setup';
import { buildWorkflowBundle } from '../src/runtime/bundle-workflows';
import { connectTemporalWorker } from '../src/runtime/connect';
import { watchedWorker } from './parked';
import { BENCH_CALLERS } from './runner';
import { msOf, spanOf, withSection, writeSection, type ReportSection, type ServerKind, type Span } from './report-section';

export interface NexusFigures {
  date: string;
  command: string;
  samples: number;
  /** BatonClient.start, then result(): the delegation started directly. */
  direct: Span;
  /** A caller workflow in another namespace, from its start to its result. */
  callerWorkflow: Span;
  /** The `delegate` operation, NexusOperationScheduled → NexusOperationCompleted in the caller's history. */
  operation: Span;
}

export interface NexusOptions {
  client: Client;
  address: string;
  namespace: string;
  /** Where a worker connects: the dev server's address, or `{}` for the cluster's environment. */
  target: string | Record<string, never>;
  samples: number;
  say(line: string): void;
}

const TEXT = 'Verify inspection report inspection-92 against order A1042 for SN-4471';

export async function measureNexusLatency(o: NexusOptions): Promise<Omit<NexusFigures, 'date' | 'command'>> {
  const agent = await startAgentServer(supplierQa({ workMs: 1 }));
  const endpoint = `bench-nexus-${process.pid}`;
  const worker = await watchedWorker('bench-nexus', o.address, [
    'agents:',
    `  supplier-qa: { card: "${agent.url}", allowHttp: true, allowPrivateNetwork: true }`,
    `nexus: { endpoint: ${endpoint}, callers: [{ namespace: ${BENCH_CALLERS}, tenant: bench, user: bench }] }`,
  ]);
  const connection = o.client.connection as Connection;
  await ensureNamespace(connection, BENCH_CALLERS, 86_400);
  await ensureNexusEndpoint(connection, endpoint, { namespace: o.namespace, taskQueue: worker.queue });
  const baton = new BatonClient(connection, {
    namespace: o.namespace,
    taskQueue: worker.queue,
    caller: { tenant: 'bench', user: 'bench' },
  });
  const native = await connectTemporalWorker(o.target);
  const taskQueue = `bench-nexus-callers-${process.pid}`;
  const callers = await Worker.create({
    connection: native,
    namespace: BENCH_CALLERS,
    taskQueue,
    workflowBundle: { code: await buildWorkflowBundle({ workflowsPath: require.resolve('./nexus-caller') }) },
  });
  const running = callers.run();
  const callerClient = new Client({ connection, namespace: BENCH_CALLERS });
  const spans = { direct: [] as number[], caller: [] as number[] };
  const runs: string[] = [];
  const once = async (keep: boolean): Promise<void> => {
    let t = performance.now();
    const id = await baton.start({ agent: 'supplier-qa', parts: [{ text: TEXT }] });
    const direct = await baton.result(id);
    if (direct.outcome?.kind !== 'ACCEPTED') throw new Error(`bench delegation ended ${JSON.stringify(direct.outcome)}`);
    if (keep) spans.direct.push(performance.now() - t);
    const workflowId = `bench-nexus-${randomUUID()}`;
    t = performance.now();
    const outcome = await callerClient.workflow.execute('benchNexusDelegate', {
      taskQueue,
      workflowId,
      args: [endpoint, 'supplier-qa', TEXT],
    });
    if (outcome !== 'ACCEPTED') throw new Error(`bench Nexus delegation ended ${String(outcome)}`);
    if (keep) {
      spans.caller.push(performance.now() - t);
      runs.push(workflowId);
    }
  };
  try {
    for (let i = 0; i < 5; i++) await once(false);
    for (let i = 0; i < o.samples; i++) {
      await once(true);
      if ((i + 1) % 25 === 0) o.say(`  ${i + 1}/${o.samples}`);
    }
    // Read after the timed part, so the reads do not slow it.
    const operation: number[] = [];
    for (const workflowId of runs) {
      const events = (await callerClient.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      const at = (key: 'nexusOperationScheduledEventAttributes' | 'nexusOperationCompletedEventAttributes') => {
        const time = events.find((e) => e[key])?.eventTime;
        return Number(time?.seconds ?? 0) * 1_000 + (time?.nanos ?? 0) / 1e6;
      };
      operation.push(at('nexusOperationCompletedEventAttributes') - at('nexusOperationScheduledEventAttributes'));
    }
    return { samples: o.samples, direct: spanOf(spans.direct), callerWorkflow: spanOf(spans.caller), operation: spanOf(operation) };
  } finally {
    callers.shutdown();
    await running;
    await native.close();
    await worker.stop();
    await agent.close();
  }
}

const SECTION: ReportSection<NexusFigures> = {
  name: 'nexus',
  marks: ['<!-- nexus: written by bench/nexus-latency.ts -->', '<!-- end of nexus -->'],
  after: '<!-- end of agui -->',
  heading: [
    '## Nexus: a delegation from another namespace (docs/nexus.md)',
    '',
    "The same delegation (supplier-qa, no question) started directly by a client and by a caller workflow in another namespace through Baton's Nexus endpoint, samples alternating, on one `baton worker` process as shipped. The operation span is the caller's own history: `NexusOperationScheduled` to `NexusOperationCompleted` (the start request, the delegation, and the completion callback).",
  ],
  rows: [
    ['samples', (f) => String(f.samples)],
    ['direct: BatonClient start → result, p50 / p99', (f) => msOf(f.direct)],
    ['through Nexus: caller workflow start → result, p50 / p99', (f) => msOf(f.callerWorkflow)],
    ['through Nexus: the delegate operation (scheduled → completed), p50 / p99', (f) => msOf(f.operation)],
  ],
};

export const writeNexus = (out: string, kind: ServerKind, figures: NexusFigures): void => writeSection(out, SECTION, kind, figures);
export const withNexusSection = (out: string, text: string): string => withSection(out, SECTION, text);
