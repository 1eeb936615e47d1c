/** Secrets named in the configuration (a variable or a file), read when they are used, never kept. */
import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { MissingCredentialError } from '../a2a/agent-http-errors';

/**
 * Reads a secret now from its variable or file; `field` names where it is configured (for the
 * message). Throws MissingCredentialError naming the variable or file; never says the value.
 */
export function readSecret(source: { fromEnv?: string; fromFile?: string }, field: string): string {
  if (source.fromEnv) {
    const value = process.env[source.fromEnv];
    if (!value) throw new MissingCredentialError(`${field}.fromEnv names ${source.fromEnv}, which is not set`);
    return value;
  }
  if (!source.fromFile) throw new MissingCredentialError(`${field} names neither fromEnv nor fromFile`);
  let value: string;
  try {
    value = readFileSync(source.fromFile, 'utf8').replace(/\r?\n$/, '');
  } catch (err) {
    throw new MissingCredentialError(`${field}.fromFile ${source.fromFile} cannot be read (${(err as Error).message})`);
  }
  if (!value) throw new MissingCredentialError(`${field}.fromFile ${source.fromFile} is empty`);
  return value;
}

/**
 * Reads a private key now from a PEM file (PKCS#8) or a file holding its JWK; `field` names where it
 * is configured. Throws MissingCredentialError naming the file; never says the key.
 */
export function readPrivateKey(file: string, field: string): KeyObject {
  try {
    const text = readFileSync(file, 'utf8');
    return text.trimStart().startsWith('{')
      ? createPrivateKey({ key: JSON.parse(text) as JsonWebKey, format: 'jwk' })
      : createPrivateKey(text);
  } catch (err) {
    throw new MissingCredentialError(`${field} ${file} cannot be read as a private key (${(err as Error).message.slice(0, 100)})`);
  }
}
