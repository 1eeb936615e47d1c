/**
 * What the client throws, named by what the caller should do: fix the request, accept the refusal,
 * or check the id.
 */

/** The request is malformed; nothing was sent. Fix it and send again. */
export class InvalidRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidRequestError';
  }
}

/** The delegation or graph refused the request (stale request id, another tenant, not waiting, malformed). */
export class RequestRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RequestRefusedError';
  }
}

/** No delegation with that id, or one of another tenant (reported the same, so it does not leak). */
export class DelegationNotFoundError extends Error {
  constructor(id: string) {
    super(`no delegation with id ${id}`);
    this.name = 'DelegationNotFoundError';
  }
}

/** No graph with that id, or one of another tenant. */
export class GraphNotFoundError extends Error {
  constructor(id: string) {
    super(`no graph with id ${id}`);
    this.name = 'GraphNotFoundError';
  }
}
