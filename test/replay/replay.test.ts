/**
 * The replay corpus: histories that earlier Baton code wrote on a real server (recorded by
 * `npm run record-histories`), replayed on the current workflow code. A change to workflow code that
 * would break a delegation or graph in flight fails here, with the history's file and Temporal's own
 * words; make the change behind `patched()` (docs/decisions/0017-upgrades.md).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { freshWorkflowBundlePath } from '../../src/runtime/bundle-workflows';
import { projectRoot } from '../../src/runtime/project-root';
import { testBundle } from '../helpers/temporal';
import { pathsOf, REQUIRED_PATHS } from './paths';
import { inSupportWindow, OLDEST_SUPPORTED } from '../../src/shared/support-window';

const folder = join(projectRoot(), 'test', 'replay', 'histories');
/** Histories that releases older than the support window wrote: kept only to prove they are refused. */
const outsideFolder = join(projectRoot(), 'test', 'replay', 'outside-window');
/** Histories that code from before a patch wrote (one-off recordings, see the folder's index). */
const beforePatchesFolder = join(projectRoot(), 'test', 'replay', 'before-patches');

/** Each history's workflow id, from the indexes: workflow code derives its children's ids from it. */
const workflowIds = new Map(
  [folder, outsideFolder, beforePatchesFolder].flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('-index.json'))
      .flatMap((f) => (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { histories: { file: string; workflowId: string }[] }).histories)
      .map((h) => [h.file, h.workflowId] as const),
  ),
);
const historiesIn = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !f.endsWith('-index.json'))
    .sort()
    .map((file) => ({ file, history: historyFromJSON(JSON.parse(readFileSync(join(dir, file), 'utf8'))) }));
const corpus = historiesIn(folder);

async function replay(histories: { file: string; history: ReturnType<typeof historyFromJSON> }[], options?: Partial<ReplayWorkerOptions>) {
  const failures: { file: string; error: string }[] = [];
  let replayed = 0;
  const fileOf = new Map(histories.map(({ file }) => [workflowIds.get(file) ?? file, file]));
  const results = Worker.runReplayHistories(
    { workflowBundle: await testBundle(), replayName: 'baton-replay-corpus', ...options },
    histories.map(({ file, history }) => ({ workflowId: workflowIds.get(file) ?? file, history })),
  );
  for await (const result of results) {
    replayed += 1;
    const file = fileOf.get(result.workflowId) ?? result.workflowId;
    if (result.error) failures.push({ file, error: String((result.error as Error).message ?? result.error).slice(0, 400) });
  }
  return { replayed, failures };
}

test('the corpus covers every path a delegation or graph can walk, and the index names each history', () => {
  for (const { file } of corpus) assert.ok(workflowIds.has(file), `${file} is in an index, with its workflow id`);
  const covered = new Set(corpus.flatMap(({ history }) => pathsOf(history)));
  const missing = REQUIRED_PATHS.filter((p) => !covered.has(p));
  assert.deepEqual(missing, [], `no history in ${folder} walks ${missing.join(', ')}: re-record with npm run record-histories`);
  assert.ok(corpus.length >= REQUIRED_PATHS.length / 2, `only ${corpus.length} histories`);
});

test('the corpus holds exactly the support window: every history was written by a release this one runs', () => {
  const versions = new Set(corpus.map(({ file }) => file.split('-')[0] ?? ''));
  assert.ok(versions.has(OLDEST_SUPPORTED), `the corpus has histories of ${OLDEST_SUPPORTED}, the oldest release in the window`);
  const outside = [...versions].filter((v) => !inSupportWindow(v));
  assert.deepEqual(outside, [], `histories older than ${OLDEST_SUPPORTED} are outside the window: delete them (decision 0033)`);
});

test('a history from before the window is refused with one clear message, never a nondeterminism error', async () => {
  const old = historiesIn(outsideFolder);
  assert.deepEqual(
    old.map(({ file }) => file),
    ['0.8.0-04-input-round.json', '0.8.0-34-graph.json'],
  );
  const { replayed, failures } = await replay(old);
  assert.equal(replayed, old.length);
  assert.equal(failures.length, old.length, 'each one fails');
  for (const { file, error } of failures) {
    const kind = file.includes('graph') ? 'graph' : 'delegation';
    assert.match(
      error,
      new RegExp(`this ${kind} was started by Baton 0\\.8\\.0; Baton [0-9.]+ runs ${kind}s started by 0\\.9\\.0 or later`),
      file,
    );
    assert.match(error, /baton upgrade-check/, file);
    assert.doesNotMatch(error, /nondetermin/i, file);
  }
});

test('every recorded history replays on the current workflow code', async () => {
  const { replayed, failures } = await replay(corpus);
  assert.equal(replayed, corpus.length);
  assert.deepEqual(failures, [], failures.map((f) => `${f.file}: ${f.error}`).join('\n'));
});

test('every recorded history replays on the traced bundle a tracing worker loads, and sends no span again', async () => {
  // Tracing can be switched on for a fleet with delegations in flight: the OpenTelemetry workflow
  // interceptors add no command, and a replayed history's spans were sent when it first ran.
  const traced = freshWorkflowBundlePath(true);
  assert.ok(traced, 'npm run build writes lib/workflow-bundle-traced.js');
  const spans = new InMemorySpanExporter();
  const { replayed, failures } = await replay(corpus, {
    workflowBundle: { codePath: traced },
    sinks: { exporter: makeWorkflowExporter(new SimpleSpanProcessor(spans), new Resource({ 'service.name': 'replay' })) },
  });
  assert.equal(replayed, corpus.length);
  assert.deepEqual(failures, [], failures.map((f) => `${f.file}: ${f.error}`).join('\n'));
  assert.equal(spans.getFinishedSpans().length, 0);
});

test('a push delegation whose backstop reads used up the call budget before paced reads were budgeted by time replays as it ran', async () => {
  const before = historiesIn(beforePatchesFolder);
  assert.deepEqual(
    before.map(({ file }) => file),
    ['paced-reads-budget-exhausted.json'],
  );
  const [{ history }] = before as [(typeof before)[number]];
  const events = history.events ?? [];
  assert.equal(events.filter((e) => e.timerFiredEventAttributes).length, 2, 'two backstop reads, paced by the timer');
  const result = events.at(-1)?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0]?.data;
  assert.match(Buffer.from(result ?? []).toString('utf8'), /remote call budget of 6 used up/, 'they counted against maxRemoteCalls');
  const { replayed, failures } = await replay(before);
  assert.equal(replayed, 1);
  assert.deepEqual(failures, [], failures.map((f) => `${f.file}: ${f.error}`).join('\n'));
});

test('the replayer notices a history the code would not write (the check can fail)', async () => {
  const original = corpus.find(({ history }) => pathsOf(history).includes('input-round'));
  assert.ok(original, 'the corpus has an input round');
  const altered = historyFromJSON(JSON.parse(readFileSync(join(folder, original.file), 'utf8')));
  const scheduled = altered.events?.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name);
  assert.ok(scheduled?.activityTaskScheduledEventAttributes?.activityType);
  scheduled.activityTaskScheduledEventAttributes.activityType.name = 'anActivityBatonNeverHad';
  const { failures } = await replay([{ file: original.file, history: altered }]);
  assert.equal(failures.length, 1);
  assert.match(failures[0]?.error ?? '', /nondetermin/i);
});
