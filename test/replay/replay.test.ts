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

const folder = join(projectRoot(), 'test', 'replay', 'histories');
/** Each history's workflow id, from the indexes: workflow code derives its children's ids from it. */
const workflowIds = new Map(
  readdirSync(folder)
    .filter((f) => f.endsWith('-index.json'))
    .flatMap((f) => (JSON.parse(readFileSync(join(folder, f), 'utf8')) as { histories: { file: string; workflowId: string }[] }).histories)
    .map((h) => [h.file, h.workflowId]),
);
const corpus = readdirSync(folder)
  .filter((f) => f.endsWith('.json') && !f.endsWith('-index.json'))
  .sort()
  .map((file) => ({ file, history: historyFromJSON(JSON.parse(readFileSync(join(folder, file), 'utf8'))) }));

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
