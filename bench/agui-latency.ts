/**
 * How soon an AG-UI front end sees an agent's state change (docs/agui.md): delegations one after
 * another, each asking a question and then completing, on one `baton worker` process as shipped and
 * Baton's HTTP server in this process, followed by the official `@ag-ui/client`. Two spans each: from
 * the moment the agent published the change to the client's event (what a user waits), and from the
 * moment Baton observed it (the record's `observedAt`) to the event (the AG-UI adapter's own share).
 */
import type { Client } from '@temporalio/client';
import { HttpAgent } from '@ag-ui/client';
import pino from 'pino';
import { CallerTokens } from '../src/auth/caller-tokens';
import { BatonClient } from '../src/client/baton-client';
import { GraphClient } from '../src/client/graph-client';
import { startAgentServer } from '../src/demo/agent-server';
import { statusEvent, artifactEvent } from '../src/demo/events';
import { executor, openTask, skill, textOf } from '../src/demo/kit';
import { startApiServer } from '../src/http/api-server';
import { loopbackAgentEntry } from '../src/config/schema';
import { DelegationThread } from '../src/agui/threads';
import { watchedWorker } from './parked';
import { msOf, spanOf, withSection, writeSection, type ReportSection, type ServerKind, type Span } from './report-section';

export interface AguiFigures {
  date: string;
  command: string;
  samples: number;
  /** Question asked (INPUT_REQUIRED published) → the run's interrupt event. */
  asked: { fromAgent: Span; fromObserved: Span };
  /** COMPLETED published → the run's RUN_FINISHED (success). */
  completed: { fromAgent: Span; fromObserved: Span };
}

export interface AguiOptions {
  client: Client;
  address: string;
  namespace: string;
  samples: number;
  say(line: string): void;
}

const TOKEN = 'bench-agui-token-0123456789abcdef';

/** An agent that asks one question, then completes, noting when it published each. */
function askingAgent(published: Map<string, number>) {
  return {
    name: 'asking',
    description: 'Asks one question, then completes',
    skills: skill('ask', 'asks, then answers'),
    executor: executor(async (ctx, bus) => {
      openTask(ctx, bus);
      const answered = ctx.task !== undefined && /SN-/.test(textOf(ctx.userMessage));
      const state = answered ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_INPUT_REQUIRED';
      if (answered)
        bus.publish(artifactEvent(ctx.taskId, ctx.contextId, { artifactId: `${ctx.taskId}-a`, name: 'answer', parts: [{ text: 'done' }] }));
      published.set(`${ctx.taskId}:${state}`, Date.now());
      bus.publish(statusEvent(ctx.taskId, ctx.contextId, state, answered ? 'Done.' : 'Which serial number?'));
      bus.finished();
    }),
  };
}

export async function measureAguiLatency(o: AguiOptions): Promise<Omit<AguiFigures, 'date' | 'command'>> {
  const published = new Map<string, number>();
  const agent = await startAgentServer(askingAgent(published));
  const worker = await watchedWorker('bench-agui', o.address, [
    'agents:',
    `  asking: { card: "${agent.url}", allowHttp: true, allowPrivateNetwork: true, acceptance: accept-any }`,
  ]);
  const caller = { tenant: 'bench', user: 'bench' };
  const opts = { namespace: o.namespace, taskQueue: worker.queue, caller };
  const baton = new BatonClient(o.client.connection, opts);
  const api = await startApiServer({
    baton,
    graphs: new GraphClient(o.client.connection, opts),
    tokens: new CallerTokens([{ token: TOKEN, caller }]),
    logger: pino({ level: 'warn' }),
    host: '127.0.0.1',
    port: 0,
    uiDir: null,
    rateLimit: { requestsPerMinute: 60_000, burst: 10_000 },
    agui: { agents: { asking: loopbackAgentEntry(agent.url) } },
  });
  const spans = { askedAgent: [] as number[], askedObserved: [] as number[], doneAgent: [] as number[], doneObserved: [] as number[] };
  const once = async (n: number, keep: boolean): Promise<void> => {
    const threadId = `bench-${process.pid}-${Date.now()}-${n}`;
    const front = new HttpAgent({ url: `${api.url}/agui/agents/asking`, headers: { Authorization: `Bearer ${TOKEN}` }, threadId });
    front.addMessage({ id: `${threadId}-1`, role: 'user', content: 'Check order A1042' });
    const seen = { interrupt: 0, finished: 0, interruptId: '' };
    await front.runAgent(
      {},
      {
        onRunFinishedEvent: (f) => {
          seen.interrupt = Date.now();
          if (f.outcome === 'interrupt') seen.interruptId = f.interrupts[0]?.id ?? '';
        },
      },
    );
    await front.runAgent(
      { resume: [{ interruptId: seen.interruptId, status: 'resolved', payload: 'SN-4471' }] },
      { onRunFinishedEvent: () => void (seen.finished = Date.now()) },
    );
    const record = await baton.show(new DelegationThread(baton, 'asking', threadId).id);
    if (record.outcome?.kind !== 'ACCEPTED') throw new Error(`bench delegation ended ${JSON.stringify(record.outcome)}`);
    const taskId = record.remote.taskId ?? '';
    const observed = (state: string) => Date.parse(record.remote.history.find((h) => h.state === state)?.observedAt ?? '');
    if (!keep) return;
    spans.askedAgent.push(seen.interrupt - (published.get(`${taskId}:TASK_STATE_INPUT_REQUIRED`) ?? NaN));
    spans.askedObserved.push(seen.interrupt - observed('TASK_STATE_INPUT_REQUIRED'));
    spans.doneAgent.push(seen.finished - (published.get(`${taskId}:TASK_STATE_COMPLETED`) ?? NaN));
    spans.doneObserved.push(seen.finished - observed('TASK_STATE_COMPLETED'));
  };
  try {
    for (let i = 0; i < 5; i++) await once(i, false);
    for (let i = 0; i < o.samples; i++) {
      await once(i, true);
      if ((i + 1) % 25 === 0) o.say(`  ${i + 1}/${o.samples}`);
    }
    return {
      samples: o.samples,
      asked: { fromAgent: spanOf(spans.askedAgent), fromObserved: spanOf(spans.askedObserved) },
      completed: { fromAgent: spanOf(spans.doneAgent), fromObserved: spanOf(spans.doneObserved) },
    };
  } finally {
    await api.close();
    await worker.stop();
    await agent.close();
  }
}

const SECTION: ReportSection<AguiFigures> = {
  name: 'agui',
  marks: ['<!-- agui: written by bench/agui-latency.ts -->', '<!-- end of agui -->'],
  after: '<!-- end of data use -->',
  heading: [
    '## How soon an AG-UI front end sees a change (docs/agui.md)',
    '',
    "Delegations one after another to an agent that asks a question, then completes once answered, on one `baton worker` process as shipped, followed through `/agui` by the official `@ag-ui/client`. From the agent's publishing a state to the client's event, and from Baton's observing it (the record's `observedAt`) to the event: the AG-UI adapter's own share.",
  ],
  rows: [
    ['samples', (f) => String(f.samples)],
    ['question asked → interrupt event: from the agent, p50 / p99', (f) => msOf(f.asked.fromAgent)],
    ['question asked → interrupt event: from Baton observing it, p50 / p99', (f) => msOf(f.asked.fromObserved)],
    ['completed → RUN_FINISHED: from the agent, p50 / p99', (f) => msOf(f.completed.fromAgent)],
    ['completed → RUN_FINISHED: from Baton observing it, p50 / p99', (f) => msOf(f.completed.fromObserved)],
  ],
};

export const writeAgui = (out: string, kind: ServerKind, figures: AguiFigures): void => writeSection(out, SECTION, kind, figures);
export const withAguiSection = (out: string, text: string): string => withSection(out, SECTION, text);
