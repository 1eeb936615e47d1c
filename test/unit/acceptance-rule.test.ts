import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PolicyRegistry } from '../../src/acceptance/policies';
import { decide, needsNotice, type Candidate } from '../../src/shared/acceptance-rule';
import type { ArtifactRecord } from '../../src/shared/delegation-types';

const artifact = (name: string, mediaType?: string): ArtifactRecord =>
  ({ artifactId: name, name, ...(mediaType ? { mediaType } : {}), size: 1, sha256: 'x', source: 'task' }) as unknown as ArtifactRecord;

const candidates: Record<string, Candidate> = {
  none: { artifacts: [] },
  reply: { artifacts: [], reply: { parts: [{ text: 'hi' }] } },
  report: { artifacts: [artifact('report', 'application/json')] },
  'report as text': { artifacts: [artifact('report', 'text/plain')] },
  'report and photo': { artifacts: [artifact('report', 'application/json'), artifact('photo')] },
};

describe('acceptance rules', () => {
  const registry = new PolicyRegistry().declareAll({
    'needs-report': { requireArtifacts: [{ name: 'report', mediaType: 'application/json' }], review: false },
    'report-then-any': { base: 'completed-with-artifact', requireArtifacts: [{ name: 'report' }], review: true },
    chained: { base: 'report-then-any', requireArtifacts: [{ name: 'photo' }], review: false },
    'on-code': { base: 'supplier-verdict', review: false },
  });

  it('decides exactly what the worker policy of the same name decides, for every candidate', async () => {
    const named = ['accept-any', 'completed-with-artifact', 'needs-report', 'report-then-any', 'chained'];
    for (const name of named) {
      const rule = registry.ruleOf(name);
      assert.ok(rule, `${name} is data`);
      for (const [what, candidate] of Object.entries(candidates)) {
        assert.deepEqual(decide(rule, candidate), await registry.get(name)?.(candidate), `${name} on ${what}`);
      }
    }
  });

  it('says why: a missing artifact, or one of another media type', () => {
    const rule = registry.ruleOf('needs-report');
    assert.ok(rule);
    assert.deepEqual(decide(rule, candidates.none as Candidate).reasons, ['required artifact "report" is missing']);
    assert.deepEqual(decide(rule, candidates['report as text'] as Candidate).reasons, [
      'artifact "report" is text/plain, not application/json',
    ]);
    assert.equal(decide(registry.ruleOf('report-then-any') as never, candidates.report as Candidate).review, true);
  });

  it('has no rule for a policy written in code, one based on it, or a built-in name taken over by code', () => {
    assert.equal(registry.ruleOf('supplier-verdict'), undefined);
    assert.equal(registry.ruleOf('on-code'), undefined);
    assert.equal(registry.ruleOf('unknown'), undefined);
    const taken = new PolicyRegistry().register('accept-any', () => ({ accepted: false, reasons: ['mine'] }));
    assert.equal(taken.ruleOf('accept-any'), undefined);
    assert.ok(taken.ruleOf('completed-with-artifact'));
  });

  it('gives notice of a refusal and of a result sent to review, not of a plain acceptance', () => {
    assert.equal(needsNotice({ accepted: false, reasons: ['no'] }), true);
    assert.equal(needsNotice({ accepted: true, reasons: ['yes'], review: true }), true);
    assert.equal(needsNotice({ accepted: true, reasons: ['yes'] }), false);
  });
});
