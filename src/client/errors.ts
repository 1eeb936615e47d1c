/**
 * What the clients throw, named by what the caller should do: fix the request, accept the refusal,
 * or check the id. Each is a BatonError (src/errors/baton-error.ts), whose kind decides the CLI's exit
 * code and the HTTP API's status.
 */
import { BatonError } from '../shared/baton-error';

/** The request is malformed; nothing was sent. Fix it and send again. */
export class InvalidRequestError extends BatonError {
  constructor(message: string) {
    super('InvalidRequest', message);
  }
}

/** The delegation or graph refused the request (stale request id, another tenant, not waiting, malformed). */
export class RequestRefusedError extends BatonError {
  constructor(message: string) {
    super('Refused', message);
  }
}

/** No delegation with that id, or one of another tenant (reported the same, so it does not leak). */
export class DelegationNotFoundError extends BatonError {
  constructor(id: string) {
    super('NotFound', `no delegation with id ${id}`);
  }
}

/** No graph with that id, or one of another tenant. */
export class GraphNotFoundError extends BatonError {
  constructor(id: string) {
    super('NotFound', `no graph with id ${id}`);
  }
}
