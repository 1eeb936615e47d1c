/**
 * The config cannot be used: the message names the file, each field and the fix (one line; `problems`
 * lists them).
 */
import { BatonError } from '../shared/baton-error';

export class ConfigError extends BatonError {
  constructor(
    message: string,
    readonly problems: string[] = [],
  ) {
    super('ConfigInvalid', problems.length ? `${message.replace(/:$/, '')}: ${problems.join('; ')}` : message);
  }
}
