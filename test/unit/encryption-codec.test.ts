/**
 * The encryption codec: what a payload becomes, rotation, and every way decryption can fail, each a
 * typed error that names the key and the fix.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import { ConfigError } from '../../src/config/config-error';
import { encryptionCodec } from '../../src/codec/data-converter';
import { EncryptionCodec, KEY_ID_FIELD, PayloadDecryptError, PayloadKeyUnknownError } from '../../src/codec/encryption-codec';

const A = randomBytes(32);
const B = randomBytes(32);
const payload = defaultPayloadConverter.toPayload({ request: 'Verify inspection-92 against order A1042' });
const meta = (p: { metadata?: Record<string, Uint8Array> | null }, k: string) => Buffer.from(p.metadata?.[k] ?? []).toString();

describe('the encryption codec', () => {
  it('turns a payload into a ciphertext naming its key, and back', async () => {
    const codec = new EncryptionCodec(new Map([['a', A]]), 'a');
    const [sealed] = await codec.encode([payload]);
    assert.ok(sealed);
    assert.equal(meta(sealed, 'encoding'), 'binary/encrypted');
    assert.equal(meta(sealed, KEY_ID_FIELD), 'a');
    assert.doesNotMatch(Buffer.from(sealed.data ?? []).toString('latin1'), /inspection-92|json\/plain/);
    const [opened] = await codec.decode([sealed]);
    assert.deepEqual(defaultPayloadConverter.fromPayload(opened as never), { request: 'Verify inspection-92 against order A1042' });
    assert.deepEqual(await codec.decode([payload]), [payload], 'a plain payload passes through');
  });

  it('keeps old payloads readable after the current key rotates', async () => {
    const [old] = await new EncryptionCodec(new Map([['a', A]]), 'a').encode([payload]);
    const rotated = new EncryptionCodec(
      new Map([
        ['a', A],
        ['b', B],
      ]),
      'b',
    );
    const [fresh] = await rotated.encode([payload]);
    assert.equal(meta(fresh as never, KEY_ID_FIELD), 'b');
    const decoded = await rotated.decode([old as never, fresh as never]);
    assert.deepEqual(
      decoded.map((p) => defaultPayloadConverter.fromPayload(p)),
      [{ request: 'Verify inspection-92 against order A1042' }, { request: 'Verify inspection-92 against order A1042' }],
    );
  });

  it('names an unknown key, and a ciphertext that does not decrypt', async () => {
    const [sealed] = await new EncryptionCodec(new Map([['a', A]]), 'a').encode([payload]);
    assert.ok(sealed?.data);
    await assert.rejects(new EncryptionCodec(new Map([['b', B]]), 'b').decode([sealed]), (err: unknown) => {
      assert.ok(err instanceof PayloadKeyUnknownError);
      assert.match(err.message, /encrypted with key "a", which is not in encryption\.keys: add it/);
      return true;
    });
    const tampered = { ...sealed, data: Buffer.from(sealed.data) };
    tampered.data[20] = (tampered.data[20] ?? 0) ^ 0xff;
    await assert.rejects(new EncryptionCodec(new Map([['a', A]]), 'a').decode([tampered]), PayloadDecryptError);
    await assert.rejects(
      new EncryptionCodec(new Map([['a', B]]), 'a').decode([sealed]),
      /encryption\.keys\.a is not the key that wrote it/,
    );
  });

  it('refuses a missing, unreadable or short key, naming it', () => {
    const refused = (fn: () => unknown, pattern: RegExp) =>
      assert.throws(fn, (e: unknown) => e instanceof ConfigError && pattern.test(e.message));
    delete process.env.BATON_TEST_NO_KEY;
    refused(
      () => encryptionCodec({ currentKey: 'a', keys: { a: { fromEnv: 'BATON_TEST_NO_KEY' } } }),
      /encryption\.keys\.a: the variable BATON_TEST_NO_KEY is not set/,
    );
    process.env.BATON_TEST_SHORT_KEY = randomBytes(16).toString('base64');
    refused(() => encryptionCodec({ currentKey: 'a', keys: { a: { fromEnv: 'BATON_TEST_SHORT_KEY' } } }), /holds 16 bytes, not 32/);
    refused(
      () => encryptionCodec({ currentKey: 'a', keys: { a: { fromFile: '/nonexistent/key' } } }),
      /cannot read the file \/nonexistent\/key: ENOENT/,
    );
    process.env.BATON_TEST_HEX_KEY = A.toString('hex');
    assert.equal(encryptionCodec({ currentKey: 'a', keys: { a: { fromEnv: 'BATON_TEST_HEX_KEY' } } }).current, 'a', 'hex is read too');
  });
});
