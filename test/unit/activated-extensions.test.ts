import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { noteActivatedExtensions, withActivatedExtensions } from '../../src/a2a/activated-extensions';
import { DATA_USE_EXTENSION } from '../../src/shared/data-use';

const answer = (value: string) => new Headers({ 'a2a-extensions': value });

describe('the extensions an agent says it activated (a response header, untrusted)', () => {
  it('keeps the URIs of every response of the call, once each', async () => {
    const { activated } = await withActivatedExtensions(async () => {
      noteActivatedExtensions(answer(` ${DATA_USE_EXTENSION} , urn:other`));
      noteActivatedExtensions(new Headers({ 'x-a2a-extensions': DATA_USE_EXTENSION }));
      return 1;
    });
    assert.deepEqual(activated, [DATA_USE_EXTENSION, 'urn:other']);
  });

  it('bounds what a mangled header can put in a record: no empty or overlong entries, at most 32', async () => {
    const mangled = [',,,', 'x'.repeat(5_000), ...Array.from({ length: 100 }, (_, i) => `urn:junk:${i}`), DATA_USE_EXTENSION].join(',');
    const { activated } = await withActivatedExtensions(async () => noteActivatedExtensions(answer(mangled)));
    assert.equal(activated?.length, 32);
    assert.ok(activated?.every((u) => u.length > 0 && u.length <= 2048));
    assert.ok(!activated?.includes(DATA_USE_EXTENSION), 'past the bound: not acknowledged');
  });

  it('notes nothing outside a call, and nothing for a response without the header', async () => {
    noteActivatedExtensions(answer(DATA_USE_EXTENSION));
    const { activated } = await withActivatedExtensions(async () => noteActivatedExtensions(new Headers()));
    assert.equal(activated, undefined);
  });
});
