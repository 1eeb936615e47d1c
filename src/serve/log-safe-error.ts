/**
 * The a2a-js SDK's HTTP handlers print an error the agent throws with `console.error`: its stack and
 * its properties, a dozen lines each time a caller subscribes to a task that does not exist, say. A
 * refusal a caller can cause at will must not cost the shared log that much, nor carry what the caller
 * chose at any length: shaped here, the SDK's report of it is one line of bounded length. What the
 * caller is answered (the message, the A2A reason and metadata) is unchanged but for the length cap.
 */

/** The longest message a refusal carries, to the caller and into the log. */
const MAX_MESSAGE_CHARS = 500;

/** `err`, printed by `console.error` as one line `[Name: message]`; its properties stay readable. */
export function logSafe<E extends Error>(err: E): E {
  if (err.message.length > MAX_MESSAGE_CHARS) err.message = `${err.message.slice(0, MAX_MESSAGE_CHARS)}…`;
  const stack = `${err.name}: ${err.message}`.replace(/[\r\n]+/g, ' ');
  Object.defineProperty(err, 'stack', { value: stack, enumerable: false, writable: true, configurable: true });
  for (const key of Object.keys(err)) Object.defineProperty(err, key, { enumerable: false });
  return err;
}
