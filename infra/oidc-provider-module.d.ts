// oidc-provider ships no types: the little the test provider uses of it.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  /** An OpenID provider for `issuer`, configured by `configuration`. */
  export default class Provider {
    constructor(issuer: string, configuration: unknown);
    /** The provider as a Node request listener. */
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
