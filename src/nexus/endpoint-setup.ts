/**
 * The Nexus endpoint on the server that routes callers' operations to Baton's worker: `baton setup
 * --nexus` creates it (targeting this config's namespace and task queue) or checks it, and the worker
 * warns at start when it points elsewhere. An endpoint is a cluster-wide name another team may own,
 * so one that targets somewhere else is reported, never moved.
 */
import type { Connection } from '@temporalio/client';
import { BatonError } from '../shared/baton-error';

/** Where an endpoint sends operations: a namespace and a task queue its workers poll. */
export interface EndpointTarget {
  namespace: string;
  taskQueue: string;
}

/** What `ensureNexusEndpoint` found or did. */
export interface EndpointSetup {
  endpoint: string;
  target: EndpointTarget;
  created: boolean;
}

/** An endpoint of Baton's name that sends operations somewhere else. */
export class EndpointMisdirectedError extends BatonError {
  constructor(
    readonly endpoint: string,
    readonly found: EndpointTarget | undefined,
    readonly wanted: EndpointTarget,
  ) {
    super(
      'ConfigInvalid',
      `Nexus endpoint ${endpoint} ${found ? `targets namespace ${found.namespace}, task queue ${found.taskQueue}` : 'targets no worker (an external URL)'}, not this Baton's (namespace ${wanted.namespace}, task queue ${wanted.taskQueue}): choose another name in nexus.endpoint, or, if it is yours, delete it (temporal operator nexus endpoint delete --name ${endpoint}) and run baton setup --nexus again`,
    );
  }
}

type Operator = Pick<Connection, 'operatorService'>;

/** The endpoint named `name` with its id, version and worker target, or undefined when there is none. */
export async function findEndpoint(
  connection: Operator,
  name: string,
): Promise<{ id: string; version: number; target: EndpointTarget | undefined } | undefined> {
  const listed = await connection.operatorService.listNexusEndpoints({ name, pageSize: 1 });
  const endpoint = listed.endpoints?.find((e) => e.spec?.name === name);
  if (!endpoint) return undefined;
  const worker = endpoint.spec?.target?.worker;
  return {
    id: endpoint.id ?? '',
    version: Number(endpoint.version ?? 0),
    target: worker?.namespace && worker.taskQueue ? { namespace: worker.namespace, taskQueue: worker.taskQueue } : undefined,
  };
}

const sameTarget = (a: EndpointTarget | undefined, b: EndpointTarget): boolean =>
  a !== undefined && a.namespace === b.namespace && a.taskQueue === b.taskQueue;

/**
 * Throws EndpointMisdirectedError when endpoint `name` exists and targets somewhere other than `wanted`;
 * returns whether it exists.
 */
export async function checkEndpoint(connection: Operator, name: string, wanted: EndpointTarget): Promise<boolean> {
  const found = await findEndpoint(connection, name);
  if (found && !sameTarget(found.target, wanted)) throw new EndpointMisdirectedError(name, found.target, wanted);
  return found !== undefined;
}

/** Creates endpoint `name` targeting `wanted` when it is missing; checks it when it is there. */
export async function ensureNexusEndpoint(connection: Operator, name: string, wanted: EndpointTarget): Promise<EndpointSetup> {
  if (await checkEndpoint(connection, name, wanted)) return { endpoint: name, target: wanted, created: false };
  await connection.operatorService.createNexusEndpoint({
    spec: {
      name,
      target: { worker: { namespace: wanted.namespace, taskQueue: wanted.taskQueue } },
    },
  });
  return { endpoint: name, target: wanted, created: true };
}
