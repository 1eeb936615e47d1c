/**
 * What data labels and terms cost (docs/data-use.md): one delegation to an agent that completes at
 * once, on one `baton worker` process as shipped, sampled in turn in the same run: unlabelled (as
 * before labels), labelled with terms to an agent whose card declares the extension (the terms
 * conveyed and acknowledged), and labelled to one that does not (sent without them); and the checks
 * a turn goes through before it is sent, alone, in-process.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { BatonClient } from '../src/client/baton-client';
import { startAgentServer } from '../src/demo/agent-server';
import { bookingDesk } from '../src/demo/trip-agents';
import { conveyanceOf, DATA_USE_EXTENSION, refuseData, withoutDataUse, type DataUse, type DataUseRules } from '../src/shared/data-use';
import type { Part } from '../src/shared/a2a-types';
import { watchedWorker } from './parked';
import { quantile, withSection, writeSection, type ReportSection, type ServerKind } from './report-section';

interface Variant {
  p50: number;
  p99: number;
}

export interface DataUseFigures {
  date: string;
  command: string;
  samples: number;
  unlabelled: Variant;
  conveyed: Variant;
  stripped: Variant;
  /** The turn's checks alone (clearance, terms, conveyance, metadata taken off), µs per turn. */
  checkUs: { unlabelled: number; labelled: number };
}

export interface DataUseOptions {
  client: Client;
  address: string;
  namespace: string;
  samples: number;
  say(line: string): void;
}

const KINDS = ['unlabelled', 'conveyed', 'stripped'] as const;
type Kind = (typeof KINDS)[number];
const TERMS: DataUse = { label: 'internal', terms: { purpose: 'bench', retention: '30d', forwarding: 'none', actions: ['summarize'] } };

export async function measureDataUseCost(o: DataUseOptions): Promise<Omit<DataUseFigures, 'date' | 'command'>> {
  const plain = await startAgentServer(bookingDesk('instant', 'Completes at once', { workMs: 0 }));
  const declaring = await startAgentServer({
    ...bookingDesk('instant-terms', 'Completes at once and takes data-use terms', { workMs: 0 }),
    extensions: [{ uri: DATA_USE_EXTENSION }],
  });
  const entry = (name: string, url: string, extra = '') =>
    `  ${name}: { card: "${url}", allowHttp: true, allowPrivateNetwork: true, acceptance: accept-any, clearance: [internal]${extra} }`;
  const worker = await watchedWorker('bench-data-use', o.address, [
    'agents:',
    entry('unlabelled', plain.url),
    entry('conveyed', declaring.url),
    entry('stripped', plain.url, ', dataUse: { whenUndeclared: send-without-terms }'),
  ]);
  const baton = new BatonClient(o.client.connection, {
    namespace: o.namespace,
    taskQueue: worker.queue,
    caller: { tenant: 'bench', user: 'bench' },
  });
  const once = async (k: Kind): Promise<number> => {
    const t = performance.now();
    const record = await baton.result(
      await baton.start({ agent: k, parts: [{ text: `book it ${randomUUID()}` }], ...(k === 'unlabelled' ? {} : { dataUse: TERMS }) }),
    );
    if (record.outcome?.kind !== 'ACCEPTED') throw new Error(`${k}: ${JSON.stringify(record.outcome)}`);
    return performance.now() - t;
  };
  try {
    for (let i = 0; i < 5; i++) for (const k of KINDS) await once(k);
    const lat: Record<Kind, number[]> = { unlabelled: [], conveyed: [], stripped: [] };
    // Each order in turn, so no variant always follows the same one.
    const orders: Kind[][] = [
      ['unlabelled', 'conveyed', 'stripped'],
      ['conveyed', 'stripped', 'unlabelled'],
      ['stripped', 'unlabelled', 'conveyed'],
      ['unlabelled', 'stripped', 'conveyed'],
      ['stripped', 'conveyed', 'unlabelled'],
      ['conveyed', 'unlabelled', 'stripped'],
    ];
    for (let i = 0; i < o.samples; i++) {
      for (const k of orders[i % orders.length] as Kind[]) lat[k].push(await once(k));
      if ((i + 1) % 50 === 0) o.say(`  ${i + 1}/${o.samples}`);
    }
    const variant = (k: Kind): Variant => ({ p50: quantile(lat[k], 0.5), p99: quantile(lat[k], 0.99) });
    return {
      samples: o.samples,
      unlabelled: variant('unlabelled'),
      conveyed: variant('conveyed'),
      stripped: variant('stripped'),
      checkUs: checksAlone(),
    };
  } finally {
    await worker.stop();
    await plain.close();
    await declaring.close();
  }
}

/** The checks a turn goes through before it is sent, alone: as the worker runs them, per turn, in µs. */
function checksAlone(): DataUseFigures['checkUs'] {
  const rules: DataUseRules = {
    labels: ['public', 'internal', 'confidential', 'personal'],
    open: 'public',
    agents: [{ name: 'instant', card: 'http://127.0.0.1:1/' }],
  };
  const policy = { convey: 'if-declared', whenUndeclared: 'send-without-terms' } as const;
  const turn = (parts: Part[]): void => {
    if (refuseData(parts, 'instant', ['public', 'internal'], rules)) throw new Error('refused');
    conveyanceOf(parts, 'instant', false, policy, rules);
    withoutDataUse(parts);
  };
  // Fresh parts for every turn, as a worker sees them: each part's metadata is parsed once per turn.
  const time = (parts: () => Part[]): number => {
    for (let i = 0; i < 2_000; i++) turn(parts());
    const rounds = 50_000;
    const t = performance.now();
    for (let i = 0; i < rounds; i++) turn(parts());
    return ((performance.now() - t) * 1000) / rounds;
  };
  const labelled = (text: string): Part => ({ text, metadata: { [DATA_USE_EXTENSION]: { ...TERMS } } });
  return { unlabelled: time(() => [{ text: 'book it' }]), labelled: time(() => [labelled('a'), labelled('b'), labelled('c')]) };
}

const diff = (a: Variant, b: Variant): string => `${(a.p50 - b.p50).toFixed(1)} / ${(a.p99 - b.p99).toFixed(1)} ms`;

const SECTION: ReportSection<DataUseFigures> = {
  name: 'data-use',
  marks: ['<!-- data use: written by bench/data-use-cost.ts -->', '<!-- end of data use -->'],
  after: '<!-- end of identity -->',
  heading: [
    '## What data labels and terms cost (docs/data-use.md)',
    '',
    'One delegation to an agent that completes at once, on one `baton worker` process as shipped, sampled in turn in the same run: unlabelled, as before labels; labelled `internal` with terms, to an agent whose card declares the data-use extension (the terms sent and acknowledged); and the same to an agent that does not (`whenUndeclared: send-without-terms`: sent without them). Then the checks a turn goes through before it is sent, alone, in-process.',
  ],
  rows: [
    ['samples of each', (f) => String(f.samples)],
    ['unlabelled: p50 / p99', (f) => `${f.unlabelled.p50.toFixed(0)} / ${f.unlabelled.p99.toFixed(0)} ms`],
    [
      'labelled, terms sent to a declaring agent: p50 / p99 (added: p50 / p99)',
      (f) => `${f.conveyed.p50.toFixed(0)} / ${f.conveyed.p99.toFixed(0)} ms (${diff(f.conveyed, f.unlabelled)})`,
    ],
    [
      'labelled, sent without terms: p50 / p99 (added: p50 / p99)',
      (f) => `${f.stripped.p50.toFixed(0)} / ${f.stripped.p99.toFixed(0)} ms (${diff(f.stripped, f.unlabelled)})`,
    ],
    [
      "a turn's checks alone (clearance, terms, conveyance, metadata taken off): unlabelled / 3 labelled parts",
      (f) => `${f.checkUs.unlabelled.toFixed(2)} / ${f.checkUs.labelled.toFixed(1)} µs`,
    ],
  ],
};

export const writeDataUse = (out: string, kind: ServerKind, figures: DataUseFigures): void => writeSection(out, SECTION, kind, figures);
export const withDataUseSection = (out: string, text: string): string => withSection(out, SECTION, text);
