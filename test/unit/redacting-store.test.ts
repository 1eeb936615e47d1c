import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FsArtifactStore } from '../../src/artifacts/store';
import { REDACTED, Redactor } from '../../src/secrets/redactor';
import { redactingStore } from '../../src/secrets/redacting-store';

const SECRET = 'stored-Secret-42';
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

describe('redacting store', () => {
  before(() => void (process.env.BATON_TEST_STORED_SECRET = SECRET));
  after(() => void delete process.env.BATON_TEST_STORED_SECRET);
  const store = () =>
    redactingStore(
      new FsArtifactStore(mkdtempSync(join(tmpdir(), 'baton-redacting-'))),
      new Redactor([{ fromEnv: 'BATON_TEST_STORED_SECRET' }]),
    );

  it('stores bytes without a secret as they are, and bytes with one cleaned and marked', async () => {
    const s = store();
    const plain = await s.put(Buffer.from('nothing to hide'));
    assert.equal(plain.sha256, sha('nothing to hide'));
    assert.equal(plain.redacted, undefined);
    const dirty = await s.put(Buffer.from(`echo ${SECRET} back`));
    assert.equal(dirty.redacted, true);
    assert.equal((await s.get(dirty.ref)).toString(), `echo ${REDACTED} back`);
  });

  it('cleans an artifact assembled in pieces, a secret split across two of them included', async () => {
    const s = store();
    const clean = s.staging('clean');
    await clean.append(Buffer.from('chunk one, '));
    await clean.append(Buffer.from('chunk two'));
    const committed = await clean.commit();
    assert.equal(committed.sha256, sha('chunk one, chunk two'));
    assert.equal(committed.redacted, undefined);
    const split = s.staging('split');
    await split.append(Buffer.from(`a ${SECRET.slice(0, 7)}`));
    await split.append(Buffer.from(`${SECRET.slice(7)} b`));
    const cleaned = await split.commit();
    assert.equal(cleaned.redacted, true);
    assert.equal((await s.get(cleaned.ref)).toString(), `a ${REDACTED} b`);
  });
});
