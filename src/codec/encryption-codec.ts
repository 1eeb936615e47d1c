/**
 * Payload encryption as Temporal users expect it: a payload codec that turns every payload into an
 * AES-256-GCM ciphertext of the whole original payload (its metadata too), with the key's id in the
 * new payload's metadata. One current key encrypts; every listed key decrypts, so keys rotate
 * without losing old histories. Runs wherever payloads cross to the server: worker, clients, the
 * codec server (never inside the workflow sandbox, so its random IVs are fine).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { BatonError } from '../shared/baton-error';

/** The encoding an encrypted payload declares. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The metadata field naming the key that encrypted a payload. */
export const KEY_ID_FIELD = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const text = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const read = (b: Uint8Array | null | undefined): string => (b ? Buffer.from(b).toString('utf8') : '');

/** A payload names a key this process does not have: history written with a key since removed, or not yet added. */
export class PayloadKeyUnknownError extends BatonError {
  constructor(readonly keyId: string) {
    super(
      'ConfigInvalid',
      `a payload is encrypted with key "${keyId}", which is not in encryption.keys: add it (keys stay listed as long as histories they wrote are kept)`,
    );
  }
}

/** A payload does not decrypt with the key it names: the ciphertext was altered, or the key under that id is another one. */
export class PayloadDecryptError extends BatonError {
  constructor(readonly keyId: string) {
    super(
      'ConfigInvalid',
      `a payload encrypted with key "${keyId}" does not decrypt (authentication failed): the stored ciphertext was altered, or encryption.keys.${keyId} is not the key that wrote it`,
    );
  }
}

export class EncryptionCodec implements PayloadCodec {
  /** `keys`: id → 32-byte key; `current`: the id new payloads are encrypted with. */
  constructor(
    private readonly keys: ReadonlyMap<string, Buffer>,
    readonly current: string,
  ) {
    if (!keys.has(current)) throw new Error(`the current key ${current} is not among the keys`);
  }

  /** The current key's id and bytes (for sealing blobs the same way payloads are). */
  private currentKey(): Buffer {
    return this.keys.get(this.current) as Buffer;
  }

  /** `iv | ciphertext | tag` of `plain` under the current key. */
  seal(plain: Uint8Array): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.currentKey(), iv);
    return Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  }

  /** The same as `seal`, chunk by chunk, for blobs too large to hold at once. */
  async *sealStream(plain: AsyncIterable<Uint8Array>): AsyncGenerator<Buffer> {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.currentKey(), iv);
    yield iv;
    for await (const chunk of plain) yield cipher.update(chunk);
    yield cipher.final();
    yield cipher.getAuthTag();
  }

  /** The plain bytes of what `seal` made with key `keyId`; a typed error for an unknown key or altered bytes. */
  open(keyId: string, sealed: Uint8Array): Buffer {
    const key = this.keys.get(keyId);
    if (!key) throw new PayloadKeyUnknownError(keyId);
    const data = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
    try {
      if (data.length < IV_BYTES + TAG_BYTES) throw new Error('too short');
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      return Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new PayloadDecryptError(keyId);
    }
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => ({
      metadata: { encoding: text(ENCRYPTED_ENCODING), [KEY_ID_FIELD]: text(this.current) },
      data: this.seal(temporal.api.common.v1.Payload.encode(payload).finish()),
    }));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (read(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
      const keyId = read(payload.metadata?.[KEY_ID_FIELD]);
      const plain = this.open(keyId, payload.data ?? new Uint8Array());
      try {
        return temporal.api.common.v1.Payload.decode(plain);
      } catch {
        throw new PayloadDecryptError(keyId);
      }
    });
  }
}
