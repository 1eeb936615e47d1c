/**
 * One error model for everything a caller of Baton can run into. Each error has a kind, named by what
 * the caller should do, and the kind alone decides the CLI's exit code and the HTTP API's status: the
 * CLI prints the message as one line that says what happened and what to do, with no stack trace.
 */

/** Per kind: the `baton` command's exit code and the HTTP API's status. */
export const ERROR_KINDS = {
  /** The request is malformed (a flag, a body, a filter); nothing was done. Fix it and try again. */
  InvalidRequest: { exitCode: 2, httpStatus: 400 },
  /** No valid credentials came with the request. */
  Unauthorized: { exitCode: 1, httpStatus: 401 },
  /** The caller is known, but its token does not grant what the request needs (a scope). */
  Forbidden: { exitCode: 1, httpStatus: 403 },
  /** No such delegation or graph for this caller (another tenant's is reported the same). */
  NotFound: { exitCode: 1, httpStatus: 404 },
  /** The delegation or graph refused: a stale request id, not waiting, already settled, an id in use. */
  Refused: { exitCode: 1, httpStatus: 409 },
  /** The request body is too large. */
  PayloadTooLarge: { exitCode: 2, httpStatus: 413 },
  /** Too many requests from this caller just now: wait (the HTTP answer says how long, Retry-After). */
  RateLimited: { exitCode: 1, httpStatus: 429 },
  /** The configuration is wrong (a field, a port in use, a variable it names): fix it and start again. */
  ConfigInvalid: { exitCode: 1, httpStatus: 500 },
  /** Something Baton needs is not there or not ready: Temporal unreachable, its namespace not set up. */
  Unavailable: { exitCode: 1, httpStatus: 503 },
  /** A person stopped the command (Ctrl-C, SIGTERM). */
  Interrupted: { exitCode: 130, httpStatus: 503 },
  /** A bug in Baton: reported with its stack trace. */
  Internal: { exitCode: 1, httpStatus: 500 },
} as const satisfies Record<string, { exitCode: number; httpStatus: number }>;

export type ErrorKind = keyof typeof ERROR_KINDS;

export const ERROR_KIND_NAMES = Object.keys(ERROR_KINDS) as ErrorKind[];

/** The base of every error Baton reports to a caller: a kind and a one-line message that says what to do. */
export class BatonError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    // One line: a CLI prints it as is, an HTTP answer carries it in JSON.
    super(message.replace(/\s*\n\s*/g, ' ').trim(), options);
    this.name = new.target.name;
  }

  get exitCode(): number {
    return ERROR_KINDS[this.kind].exitCode;
  }

  get httpStatus(): number {
    return ERROR_KINDS[this.kind].httpStatus;
  }
}
