/**
 * Records of every shape a workflow may return are read in the current shape: the version-less ones
 * that Baton 0.1 wrote (taken from the replay corpus, so they are real), and newer ones untouched.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { projectRoot } from '../../src/runtime/project-root';
import { BATON_VERSION } from '../../src/shared/baton-version';
import { RECORD_VERSION, readRecord } from '../../src/shared/record-version';

const folder = join(projectRoot(), 'test', 'replay', 'histories');

/** The records that delegations in the corpus returned. */
function recordedResults(): Record<string, unknown>[] {
  return readdirSync(folder)
    .filter((f) => f.endsWith('.json') && !f.endsWith('-index.json'))
    .flatMap((f) => {
      const history = historyFromJSON(JSON.parse(readFileSync(join(folder, f), 'utf8')));
      const type = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
      const done = history.events?.find((e) => e.workflowExecutionCompletedEventAttributes)?.workflowExecutionCompletedEventAttributes;
      const payload = done?.result?.payloads?.[0];
      return type === 'delegationWorkflow' && payload ? [defaultPayloadConverter.fromPayload(payload) as Record<string, unknown>] : [];
    });
}

describe('record versions', () => {
  it('reads the records Baton 0.1 returned, in the current shape', () => {
    const old = recordedResults().filter((r) => r.recordVersion === undefined);
    assert.ok(old.length > 5, `the corpus holds ${old.length} version-less records`);
    for (const raw of old) {
      const read = readRecord(raw);
      assert.equal(read.recordVersion, RECORD_VERSION);
      assert.equal(read.batonVersion, undefined, 'started before versions were recorded');
      assert.equal(read.id, raw.id);
      assert.deepEqual(read.artifacts, raw.artifacts);
      assert.deepEqual(read.outcome, raw.outcome);
    }
  });

  it('fills the lists the earliest records lacked, and passes newer records on unchanged', () => {
    const read = readRecord({ id: 'dlg-1', tenant: 'acme', owner: 'ops', agent: { name: 'a' }, status: 'SETTLED', remote: {} });
    assert.deepEqual(
      [read.remote.history, read.turns, read.notes, read.refusedSignals, read.artifacts, read.remoteCalls, read.pending],
      [[], [], [], [], [], 0, null],
    );
    const newer = { recordVersion: RECORD_VERSION + 1, id: 'dlg-2', somethingNew: true };
    assert.equal(readRecord(newer), newer);
    assert.throws(() => readRecord('not a record'), TypeError);
  });

  it('records the version package.json says', () => {
    const manifest = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string };
    assert.equal(BATON_VERSION, manifest.version);
  });
});
