/**
 * The failure converter Baton's processes load when payloads are encrypted (by path: the SDK requires
 * it as a module with a `failureConverter` export). It moves each failure's message and stack trace
 * into an encoded attribute, which the payload codec then encrypts: an agent's error text quoted in an
 * activity failure does not stay in history in clear. Decoding reads both shapes, so histories written
 * without it still replay.
 */
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
