/**
 * The one data converter every Baton process uses: the default payload converter, and with
 * `encryption` in the config, the encryption codec with the configured keys (read once per process)
 * and failures whose message and stack trace are encoded, so encrypted too (activity failures quote
 * agents' error texts). Failures raised by workflow code itself (an Update refused) keep the bundle's
 * converter, so their messages stay in clear.
 */
import { readFileSync } from 'node:fs';
import type { DataConverter } from '@temporalio/common';
import { ConfigError } from '../config/config-error';
import type { BatonConfig, EncryptionConfig } from '../config/schema';
import { EncryptionCodec } from './encryption-codec';

const KEY_BYTES = 32;

/** The key's 32 bytes from its variable or file (base64 or hex), or a ConfigError naming the key and the fix. */
function keyOf(id: string, source: EncryptionConfig['keys'][string], field: string): Buffer {
  const where = 'fromEnv' in source ? `the variable ${source.fromEnv}` : `the file ${source.fromFile}`;
  let raw: string | undefined;
  if ('fromEnv' in source) raw = process.env[source.fromEnv];
  else {
    try {
      raw = readFileSync(source.fromFile, 'utf8');
    } catch (err) {
      throw new ConfigError(`${field}.${id}: cannot read ${where}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  if (!raw?.trim())
    throw new ConfigError(`${field}.${id}: ${where} is not set or empty; set it to a 32-byte key (openssl rand -base64 32)`);
  const value = raw.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (bytes.length !== KEY_BYTES) {
    throw new ConfigError(`${field}.${id}: ${where} holds ${bytes.length} bytes, not 32; make one with openssl rand -base64 32`);
  }
  return bytes;
}

/** The codec for `encryption`, keys read now. */
export function encryptionCodec(encryption: Pick<EncryptionConfig, 'currentKey' | 'keys'>, field = 'encryption.keys'): EncryptionCodec {
  const keys = new Map(Object.entries(encryption.keys).map(([id, source]) => [id, keyOf(id, source, field)] as const));
  return new EncryptionCodec(keys, encryption.currentKey);
}

const cache = new WeakMap<object, DataConverter>();

/** The data converter for `config`: undefined (Temporal's default) without `encryption`. */
export function batonDataConverter(config: Pick<BatonConfig, 'encryption'>): DataConverter | undefined {
  const encryption = config.encryption;
  if (!encryption) return undefined;
  let converter = cache.get(encryption);
  if (!converter) {
    converter = { payloadCodecs: [encryptionCodec(encryption)], failureConverterPath: require.resolve('./failure-converter') };
    cache.set(encryption, converter);
  }
  return converter;
}

/** The encryption codec of `config`'s data converter (the same instance, keys read once), if any. */
export function configuredCodec(config: Pick<BatonConfig, 'encryption'>): EncryptionCodec | undefined {
  return batonDataConverter(config)?.payloadCodecs?.[0] as EncryptionCodec | undefined;
}

/** `{ dataConverter }` for a client's options when `config` encrypts payloads, else nothing. */
export function dataConverterOption(config: Pick<BatonConfig, 'encryption'>): { dataConverter?: DataConverter } {
  const dataConverter = batonDataConverter(config);
  return dataConverter ? { dataConverter } : {};
}
