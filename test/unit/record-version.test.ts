/**
 * Records a workflow of the support window returns are read as they are (taken from the replay
 * corpus, so they are real); a version-less one (Baton 0.1) is refused with the reason.
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
  it('reads every record the releases in the support window returned as they are', () => {
    const records = recordedResults();
    assert.ok(records.length > 5, `the corpus holds ${records.length} records`);
    for (const raw of records) {
      assert.equal(raw.recordVersion, RECORD_VERSION);
      assert.equal(readRecord(raw), raw);
    }
  });

  it('refuses a record of Baton 0.1, outside the window, saying so; passes newer records on unchanged', () => {
    assert.throws(
      () => readRecord({ id: 'dlg-1', tenant: 'acme', owner: 'ops', agent: { name: 'a' }, status: 'SETTLED', remote: {} }),
      /^TypeError: delegation dlg-1 was written by Baton 0\.1 \(record version 1\), outside this release's support window \(Baton 0\.9\.0 and later\)/,
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
