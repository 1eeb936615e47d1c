/**
 * What can be wrong with the Temporal side, each said with the way out.
 */
import { BatonError } from '../shared/baton-error';

/** No Temporal server can be reached or started: `message` says which was tried and what to do. */
export class TemporalUnavailableError extends BatonError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('Unavailable', message, options);
  }
}

/** The server refused who is calling: a missing, wrong, expired or under-privileged token or certificate. */
export class TemporalRefusedError extends BatonError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('Unauthorized', message, options);
  }
}

/** No worker polls the workflow's task queue, so a Query (a live record) cannot be answered now. */
export class NoWorkerError extends TemporalUnavailableError {
  constructor(options?: { cause?: unknown }) {
    super(
      "no worker is serving this delegation's task queue right now, so its live record cannot be read: start one (`npx baton worker`, or `npx baton dev`)",
      options,
    );
  }
}

/** The namespace does not exist on the server. */
export class NamespaceMissingError extends BatonError {
  constructor(readonly namespace: string) {
    super(
      'Unavailable',
      `Temporal has no namespace ${namespace} (temporal.namespace in the config, or TEMPORAL_NAMESPACE): create it with \`npx baton setup\`, or name one that exists`,
    );
  }
}

/** `baton setup` may not create the namespace: the caller lacks the permission. */
export class NamespaceCreateRefusedError extends BatonError {
  constructor(
    readonly namespace: string,
    reason: string,
  ) {
    super(
      'Unauthorized',
      `Temporal refused to create namespace ${namespace} (${reason.replace(/^\d+ [A-Z_]+: /, '')}): ask an operator to create it (\`temporal operator namespace create --namespace ${namespace}\`), then run \`npx baton setup\` again`,
    );
  }
}

/** The namespace exists but lacks search attributes Baton's workflows set. */
export class SearchAttributesMissingError extends BatonError {
  constructor(
    readonly namespace: string,
    readonly missing: string[],
  ) {
    super(
      'Unavailable',
      `namespace ${namespace} lacks Baton's search attributes (${missing.join(', ')}): register them with \`npx baton setup\``,
    );
  }
}
