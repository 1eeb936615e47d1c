import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { MAX_FAILURE_TEXT, REDACTED, Redactor, secretSources } from '../../src/secrets/redactor';

const SECRET = 'hunter2-Secret';

describe('Redactor', () => {
  before(() => {
    process.env.BATON_TEST_REDACT = SECRET;
    process.env.BATON_TEST_SHORT = 'abc';
  });
  after(() => {
    delete process.env.BATON_TEST_REDACT;
    delete process.env.BATON_TEST_SHORT;
  });
  const redactor = () => new Redactor([{ fromEnv: 'BATON_TEST_REDACT' }, { fromEnv: 'BATON_TEST_SHORT' }, { fromEnv: 'BATON_TEST_UNSET' }]);

  it('finds a secret in bytes read piece by piece, across the pieces too, and in base64', async () => {
    const pieces = async function* (...parts: string[]) {
      for (const p of parts) yield Buffer.from(p);
    };
    const r = redactor();
    assert.equal(await r.foundIn(pieces('report: ', 'all clear', '')), false);
    assert.equal(await r.foundIn(pieces('token hun', 'ter2-Se', 'cret here')), true);
    assert.equal(await r.foundIn(pieces('x'.repeat(100), Buffer.from(SECRET).toString('base64'))), true);
    assert.equal(await r.foundIn(pieces()), false);
  });

  it('finds every secret the config names: agents auth and credentials, the push secret, API tokens', () => {
    const sources = secretSources({
      agents: {
        a: { auth: { header: 'Authorization', fromEnv: 'A' }, credentials: { x: { fromFile: '/run/x' } } } as never,
      },
      push: { secretFromEnv: 'P' } as never,
      api: { callers: [{ tokenFromEnv: 'T', tenant: 't', user: 'u' }] } as never,
    });
    assert.deepEqual(
      sources.map((s) => s.fromEnv ?? s.fromFile),
      ['A', '/run/x', 'P', 'T'],
    );
  });

  it('replaces a secret and its base64 forms in text, but not a value too short to search for', () => {
    const r = redactor();
    const b64 = Buffer.from(SECRET).toString('base64');
    assert.equal(r.text(`token ${SECRET} or ${b64}; abc`), `token ${REDACTED} or ${REDACTED}; abc`);
  });

  it('walks values, decodes file bytes, and marks an artifact whose parts changed', () => {
    const r = redactor();
    const artifact = {
      artifactId: 'a',
      sha256: 'ab',
      size: 3,
      parts: [{ raw: Buffer.from(`key=${SECRET}\n`).toString('base64') }, { data: { nested: [SECRET] } }],
    };
    const other = { artifactId: 'b', sha256: 'cd', size: 1, parts: [{ text: 'clean' }] };
    const { value, changed } = r.value({ artifacts: [artifact, other], statusText: 'ok' });
    assert.equal(changed, true);
    const [a, b] = value.artifacts as unknown as [Record<string, unknown>, Record<string, unknown>];
    assert.equal(a.redacted, true);
    assert.equal(b.redacted, undefined, 'an untouched artifact is not marked');
    assert.equal(Buffer.from((a.parts as { raw: string }[])[0]?.raw ?? '', 'base64').toString(), `key=${REDACTED}\n`);
    assert.deepEqual((a.parts as unknown[])[1], { data: { nested: [REDACTED] } });
    assert.deepEqual(r.value({ a: 1 }), { value: { a: 1 }, changed: false });
  });

  it('caps and redacts a failure, keeping its type, retryability and delay', () => {
    const failure = ApplicationFailure.create({
      type: 'RetryLater',
      message: `bad ${SECRET} ${'x'.repeat(10_000)}`,
      nextRetryDelay: 7000,
      details: [{ said: SECRET }],
    });
    const out = redactor().failure(failure) as ApplicationFailure;
    assert.equal(out.type, 'RetryLater');
    assert.equal(out.nonRetryable, false);
    assert.equal(out.nextRetryDelay, 7000);
    assert.ok(!out.message.includes(SECRET));
    assert.ok(out.message.length < MAX_FAILURE_TEXT + 100);
    assert.match(out.message, /more characters not kept\)$/);
    assert.deepEqual(out.details, [{ said: REDACTED }]);
  });
});
