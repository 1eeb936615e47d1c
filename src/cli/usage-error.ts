import { BatonError } from '../shared/baton-error';

/** A mistake in how the command was called: printed as one line, exit code 2. */
export class UsageError extends BatonError {
  constructor(message: string) {
    super('InvalidRequest', message);
  }
}
