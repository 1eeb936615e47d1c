/**
 * Payload encryption (decision 0019): the same delegation on a worker and client that encrypt, against
 * the plain ones, interleaved in the same run; then at one concurrency, and one history's size.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { dataConverterOption } from '../src/codec/data-converter';
import { EncryptionSchema } from '../src/config/schema';
import { withBaton } from '../src/embed/with-baton';
import { delegateOnce, type Latency } from './latency';
import { quantile } from './report-section';
import { ms, ratio, say, secondsFor, type BenchRun, type Report } from './runner';

export interface EncryptionFigures {
  latency: Record<'plain' | 'sealed', number[]>;
  level: number;
  rate: { plain: number; sealed: number };
  sealedBytes: number;
}

export async function measureEncryption(run: BenchRun, latency: Latency): Promise<EncryptionFigures> {
  say('payload encryption…');
  process.env.BATON_BENCH_KEY = randomBytes(32).toString('base64');
  const encryption = EncryptionSchema.parse({ currentKey: 'bench', keys: { bench: { fromEnv: 'BATON_BENCH_KEY' } } });
  const queue = 'bench-encrypted';
  const worker = await Worker.create({
    ...(await withBaton(
      { connection: run.native, namespace: run.server.namespace, taskQueue: queue, workflowsPath: require.resolve('./workflows') },
      {
        config: { agents: run.agents.entries, encryption, artifacts: { path: mkdtempSync(join(tmpdir(), 'bench-artifacts-')) } },
        logger: run.quiet,
      },
    )),
    maxCachedWorkflows: 2_000,
  });
  const running = worker.run();
  try {
    const sealed = run.batonOn(queue, dataConverterOption({ encryption }));
    const sealedOne = delegateOnce(sealed);
    const plainOne = latency.one.batonOneProcess;
    const lat: Record<'plain' | 'sealed', number[]> = { plain: [], sealed: [] };
    for (let i = 0; i < 3; i++) await sealedOne();
    for (let i = 0; i < run.size.latency; i++) {
      for (const [k, fn] of [
        ['plain', plainOne],
        ['sealed', sealedOne],
      ] as const) {
        const t = performance.now();
        await fn();
        lat[k].push(performance.now() - t);
      }
    }
    const level = Math.min(10, Math.max(...run.size.levels));
    const total = Math.max(level * 2, run.size.total);
    const rate = {
      plain: total / (await secondsFor(plainOne, level, total)),
      sealed: total / (await secondsFor(sealedOne, level, total)),
    };
    const id = await sealed.start({ agent: 'instant', parts: [{ text: 'book it' }] });
    await sealed.result(id);
    const sealedBytes = (await run.client.workflow.getHandle(id).describe()).historySize ?? 0;
    return { latency: lat, level, rate, sealedBytes };
  } finally {
    worker.shutdown();
    await running;
  }
}

export function reportEncryption(report: Report, e: EncryptionFigures, samples: number, plainBytes: number): void {
  const q = (k: 'plain' | 'sealed', at: number): number => quantile(e.latency[k], at);
  report.push(
    '',
    `## Payload encryption (agent completes at once; ${samples} each interleaved, then concurrency ${e.level})`,
    '',
    '| | p50 | p99 | Delegations per second | History bytes |',
    '|---|---|---|---|---|',
  );
  report.row(['Baton, payloads in clear', ms(q('plain', 0.5)), ms(q('plain', 0.99)), e.rate.plain.toFixed(1), plainBytes]);
  report.row(['Baton, AES-256-GCM payload codec', ms(q('sealed', 0.5)), ms(q('sealed', 0.99)), e.rate.sealed.toFixed(1), e.sealedBytes]);
  report.row([
    'encrypted ÷ clear',
    ratio(q('sealed', 0.5), q('plain', 0.5)),
    ratio(q('sealed', 0.99), q('plain', 0.99)),
    ratio(e.rate.sealed, e.rate.plain),
    ratio(e.sealedBytes, plainBytes || 1),
  ]);
}
