/**
 * What the SDK's per-promise stack trace costs a delegation's workflow code, with V8's 10 frames and
 * with Baton's limit (decision 0029): `node lib/bench/stack-trace-cost.js [--count 1000]`.
 *
 * Replays the recorded history of a delegation that completes at once (the 0.8.0 corpus) on a bundle
 * preloading zod alone and on one preloading Baton's modules, in debug mode (the workflows run on this
 * thread, so the inspector's profiler sees them), in alternating rounds. Prints the promises each
 * delegation makes in the sandbox and, from the profile, the time spent in the SDK's promise hook and
 * in activations, per delegation. Profiled times are about 1.7 times what an unprofiled worker spends;
 * compare the two bundles, not the absolute figures.
 */
import { readFileSync } from 'node:fs';
import { Session, type Profiler } from 'node:inspector';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { promiseHooks } from 'node:v8';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import pino from 'pino';
import { BATON_PRELOADED_MODULES, buildWorkflowBundle, PRELOADED_MODULES } from '../src/runtime/bundle-workflows';
import { installTemporalRuntime } from '../src/runtime/logger';
import { projectRoot } from '../src/runtime/project-root';

const HISTORY = '0.8.0-00-completes-at-once.json';

type Replayed = { history: ReturnType<typeof historyFromJSON>; workflowId: string };

function recorded(): Replayed {
  const folder = join(projectRoot(), 'test', 'replay', 'histories');
  const index = JSON.parse(readFileSync(join(folder, '0.8.0-index.json'), 'utf8')) as { histories: { file: string; workflowId: string }[] };
  const entry = index.histories.find((h) => h.file === HISTORY);
  if (!entry) throw new Error(`${HISTORY} is not in the 0.8.0 index: npm run record-histories`);
  return { history: historyFromJSON(JSON.parse(readFileSync(join(folder, HISTORY), 'utf8'))), workflowId: entry.workflowId };
}

async function replay(code: string, { history, workflowId }: Replayed, count: number): Promise<void> {
  const runs = Array.from({ length: count }, (_, i) => ({ workflowId: `${workflowId}-${i}`, history }));
  // A replay worker honours `debugMode` (workflows on this thread), though its options type omits it.
  const onThisThread = { debugMode: true } as object;
  for await (const result of Worker.runReplayHistories(
    { workflowBundle: { code }, replayName: 'stack-trace-cost', ...onThisThread },
    runs,
  )) {
    if (result.error) throw result.error as Error;
  }
}

/** Promises made inside workflow sandboxes while `fn` runs (the SDK's hook takes a stack trace of each). */
async function promisesDuring(fn: () => Promise<void>): Promise<number> {
  let made = 0;
  const stop = promiseHooks.onInit((promise: Promise<unknown>) => {
    if (promise.constructor === Promise) return;
    const activator: unknown = (promise.constructor.constructor as FunctionConstructor)('return globalThis.__TEMPORAL_ACTIVATOR__')();
    if (activator) made += 1;
  });
  try {
    await fn();
  } finally {
    stop();
  }
  return made;
}

function post<T>(session: Session, method: string): Promise<T> {
  return new Promise((resolve, reject) => session.post(method, (err, res) => (err ? reject(err) : resolve(res as T))));
}

/** Inclusive profiled time (ms) of the SDK's promise hook and of the activations. */
function timesOf(profile: Profiler.Profile): { hook: number; activations: number } {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const is = (id: number, fn: string, file: string) => {
    const { functionName, url } = byId.get(id)!.callFrame;
    return functionName === fn && url.endsWith(file);
  };
  const totals = { hook: 0, activations: 0 };
  profile.samples?.forEach((sample, i) => {
    const us = profile.timeDeltas?.[i] ?? 0;
    let inHook = false;
    let inActivation = false;
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
      inHook ||= is(id, 'init', 'vm-shared.js');
      inActivation ||= is(id, 'handleActivation', 'worker.js');
    }
    if (inHook) totals.hook += us / 1000;
    if (inActivation) totals.activations += us / 1000;
  });
  return totals;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { count: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '4' } } });
  const count = Number(values.count);
  const rounds = Number(values.rounds);
  installTemporalRuntime(pino({ level: 'error' }, pino.destination(2)));
  const history = recorded();
  const bundles = [
    { name: "V8's 10 frames (zod preloaded)", preload: PRELOADED_MODULES },
    { name: "Baton's limit (as `baton worker` ships)", preload: BATON_PRELOADED_MODULES },
  ];
  const built = await Promise.all(bundles.map(async (b) => ({ ...b, code: await buildWorkflowBundle({ preloadModules: b.preload }) })));
  const session = new Session();
  session.connect();
  await post(session, 'Profiler.enable');
  const figures = new Map(built.map((b) => [b.name, { promises: 0, hook: [] as number[], activations: [] as number[] }]));
  for (const b of built) {
    await replay(b.code, history, 50); // warm-up
    figures.get(b.name)!.promises = (await promisesDuring(() => replay(b.code, history, 20))) / 20;
  }
  for (let round = 0; round < rounds; round++) {
    for (const b of round % 2 ? [...built].reverse() : built) {
      await post(session, 'Profiler.start');
      await replay(b.code, history, count);
      const { profile } = await post<{ profile: Profiler.Profile }>(session, 'Profiler.stop');
      const t = timesOf(profile);
      figures.get(b.name)!.hook.push(t.hook / count);
      figures.get(b.name)!.activations.push(t.activations / count);
    }
  }
  session.disconnect();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`${HISTORY}, replayed ${count} times per round, ${rounds} rounds (median of the rounds; profiled)\n`);
  console.log('| Bundle | Promises per delegation | In the SDK’s promise hook | In activations, all |');
  console.log('|---|---|---|---|');
  for (const [name, f] of figures) {
    console.log(`| ${name} | ${f.promises.toFixed(0)} | ${median(f.hook).toFixed(2)} ms | ${median(f.activations).toFixed(2)} ms |`);
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`stack-trace-cost failed: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
