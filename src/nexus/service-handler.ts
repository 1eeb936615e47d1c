/**
 * Baton's Nexus service, served by Baton's worker (`nexus` in the config). Each operation acts as the
 * caller its namespace maps to (nexus-caller.ts) through the same clients the HTTP API
 * uses, so the checks and refusals are theirs: another tenant's delegation is not found, an answer to
 * a request that is not pending is refused, a start past the caller's budget waits.
 */
import * as nexus from 'nexus-rpc';
import { getClient, TemporalOperationHandler, TemporalOperationResult, type TemporalNexusClient } from '@temporalio/nexus';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { BatonClient } from '../client/baton-client';
import { GraphClient } from '../client/graph-client';
import type { WorkflowStarter } from '../client/workflow-starter';
import { InvalidRequestError } from '../client/errors';
import type { BatonClientOptions } from '../client/client-options';
import { refuseByConfig } from '../config/data-use-rules';
import type { BatonConfig, NexusConfig } from '../config/schema';
import { partsOf } from '../http/api-schemas';
import { parse } from '../http/routes/route-kit';
import type { CallerBudget } from '../limits/caller-budget';
import type { Lease } from '../limits/budget-store';
import { fieldsDigest } from '../served-tasks/task-id';
import type { Caller, DelegationRecord } from '../shared/delegation-types';
import type { GraphRecord } from '../shared/graph-types';
import { nexusCallerOf } from './nexus-caller';
import { tenantScopedId } from '../shared/ids';
import { nexusCall } from './handler-errors';
import {
  AnswerInputSchema,
  AuthorizeInputSchema,
  CancelInputSchema,
  DelegateInputSchema,
  ReviewInputSchema,
  RunGraphInputSchema,
  StatusInputSchema,
} from './operation-schemas';
import { batonNexusService, type DelegateInput, type RunGraphInput } from '../../workflows/nexus-service';
import { workflowIdOfToken } from './operation-token';
import { cancelForOperation } from './cancel-operation';

export interface NexusHandlerOptions {
  nexus: NexusConfig;
  /** The worker's config: its agents (an unknown one is refused before anything starts) and data labels. */
  config: Pick<BatonConfig, 'agents'> & Partial<Pick<BatonConfig, 'dataUse'>>;
  namespace: string;
  taskQueue: string;
  /** The worker's data converter option (encryption), for the clients that read records. */
  clientOptions?: Pick<BatonClientOptions, 'dataConverter'>;
  /**
   * Each caller's budget, as on every other surface: one request per operation (`api.rateLimit`), work
   * started (`api.limits.workStarted`; a graph its nodes), and one stream per `status` wait (`api.limits.streams`).
   */
  budget: CallerBudget;
  logger: Logger;
}

/**
 * The Update id of a synchronous operation: the server retries a request that timed out with the same
 * request id, and the retry must join the Update the first one sent, not be refused as a second.
 */
function updateIdOf(operation: string, ctx: nexus.StartOperationContext): string {
  return `nexus-${fieldsDigest(`nexus-${operation}`, ctx.requestId)}`;
}

/**
 * Refuses a caller's key that names work of the other kind (a graph's key for a delegation): a start
 * would join it and hand the caller a record of the wrong shape.
 */
async function refuseOtherKind(client: Client, id: string, type: 'delegationWorkflow' | 'taskGraphWorkflow'): Promise<void> {
  const found = await client.workflow
    .getHandle(id)
    .describe()
    .catch((err: unknown) => {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    });
  if (found && found.type !== type)
    throw new InvalidRequestError(
      `idempotencyKey names ${found.type === 'taskGraphWorkflow' ? 'a graph' : 'other work'} of your tenant, not a ${type === 'delegationWorkflow' ? 'delegation' : 'graph'}: choose another key`,
    );
}

/** A Nexus start with its caller's own key or, by default, its request id: a retried start is the same work. */
function workKey(key: string | undefined, requestId: string): string {
  return key ?? `nexus-${fieldsDigest('nexus-request', requestId)}`;
}

const isSettled = (r: DelegationRecord): boolean => r.outcome !== undefined;

/** When a wait in a synchronous operation ends: after `seconds`, and a second before the request's own deadline. */
function waitEnds(ctx: nexus.OperationContext, seconds: number): number {
  const wanted = Date.now() + seconds * 1_000;
  return ctx.requestDeadline ? Math.min(wanted, ctx.requestDeadline.getTime() - 1_000) : wanted;
}

/** `status` with `waitFor`: the wait holds one of the worker's Nexus slots, so it is one of the caller's streams. */
async function waitedStatus(
  baton: BatonClient,
  id: string,
  input: { waitFor: 'pending' | 'settled'; maxWaitSeconds?: number },
  ctx: nexus.OperationContext,
  leased: Promise<Lease>,
): Promise<DelegationRecord> {
  const done = input.waitFor === 'settled' ? isSettled : (r: DelegationRecord) => isSettled(r) || Boolean(r.pending);
  const lease = await leased;
  try {
    return await baton.until(id, done, 250, waitEnds(ctx, input.maxWaitSeconds ?? 5));
  } finally {
    await lease.release();
  }
}

/**
 * A Nexus-aware start: attaches the caller's callback; a start of a running one with the same id joins it.
 * Eager: the handler runs in the worker, on the worker's own connection, so the server may answer the
 * start with the new workflow's first task for this worker (when it has a free slot) rather than pass
 * it through its task queues: a few ms less a `delegate` (figures in docs/nexus.md).
 */
const starterFor = (client: TemporalNexusClient, started: { result?: TemporalOperationResult<never> }): WorkflowStarter =>
  (async (type, options) => {
    started.result = (await client.startWorkflow(type, {
      ...options,
      workflowIdConflictPolicy: 'USE_EXISTING',
      requestEagerStart: true,
    })) as never;
  }) as WorkflowStarter;

export function batonNexusHandler(opts: NexusHandlerOptions): nexus.ServiceHandler<typeof batonNexusService.operations> {
  let shared: { baton: BatonClient; graphs: GraphClient } | undefined;
  const clientsAs = (caller: Caller): { baton: BatonClient; graphs: GraphClient } => {
    if (!shared) {
      // The worker's own connection, through Nexus's handler context.
      const worker: Client = getClient();
      const base = { namespace: opts.namespace, taskQueue: opts.taskQueue, caller, ...opts.clientOptions };
      shared = { baton: new BatonClient(worker.connection, base), graphs: new GraphClient(worker.connection, base) };
    }
    return { baton: shared.baton.as(caller), graphs: shared.graphs.as(caller) };
  };
  /** The caller, admitted: each operation counts as one request in its budget (`api.rateLimit`), as on every surface. */
  const callerOf = async (ctx: nexus.StartOperationContext): Promise<Caller> => {
    const found = nexusCallerOf(ctx.inboundLinks, ctx.headers, opts.nexus.callers);
    if ('refusal' in found) throw new nexus.HandlerError('UNAUTHORIZED', found.refusal);
    await opts.budget.admit(found.caller);
    return found.caller;
  };
  /** The delegation an input names, by its id or by the token of the `delegate` operation that started it. */
  const delegationId = (value: string): string => workflowIdOfToken(value) ?? value;
  const logInternal = (err: unknown): void => opts.logger.error({ err }, 'a Nexus operation failed');
  const run = <T>(fn: () => Promise<T>): Promise<T> => nexusCall(fn, logInternal);

  const delegate = async (ctx: nexus.StartOperationContext, client: TemporalNexusClient, raw: DelegateInput) => {
    const input = parse(DelegateInputSchema, raw, 'delegate input');
    const caller = await callerOf(ctx);
    if (!Object.hasOwn(opts.config.agents, input.agent))
      throw new InvalidRequestError(`agent ${input.agent} is not one this Baton delegates to; ask its operator to add it under agents`);
    const parts = partsOf(input);
    const refused = refuseByConfig(opts.config, input.agent, parts, input.dataUse);
    if (refused) throw new InvalidRequestError(refused);
    const { baton } = clientsAs(caller);
    const key = workKey(input.idempotencyKey, ctx.requestId);
    if (input.idempotencyKey) await refuseOtherKind(baton.client, tenantScopedId(caller.tenant, key), 'delegationWorkflow');
    await opts.budget.startWork(caller, 1);
    const started: { result?: TemporalOperationResult<never> } = {};
    const id = await baton.start({
      agent: input.agent,
      parts,
      id: key,
      existing: 'find',
      starter: starterFor(client, started),
      ...(input.policy ? { policy: input.policy } : {}),
      ...(input.contextId ? { contextId: input.contextId } : {}),
      ...(input.referenceTaskIds ? { referenceTaskIds: input.referenceTaskIds } : {}),
      ...(input.contract ? { contract: input.contract } : {}),
      ...(input.dataUse ? { dataUse: input.dataUse } : {}),
    });
    opts.logger.info({ delegationId: id, agent: input.agent, caller }, 'delegation started over Nexus');
    // Its id names one that ended already (the same key again): its record, at once.
    return (
      (started.result as TemporalOperationResult<DelegationRecord> | undefined) ?? TemporalOperationResult.sync(await baton.result(id))
    );
  };

  const runGraph = async (ctx: nexus.StartOperationContext, client: TemporalNexusClient, raw: RunGraphInput) => {
    const input = parse(RunGraphInputSchema, raw, 'runGraph input');
    const caller = await callerOf(ctx);
    const { graphs } = clientsAs(caller);
    const key = workKey(input.idempotencyKey, ctx.requestId);
    if (input.idempotencyKey) await refuseOtherKind(graphs.client, tenantScopedId(caller.tenant, key), 'taskGraphWorkflow');
    const started: { result?: TemporalOperationResult<never> } = {};
    const id = await graphs.start(input.graph, {
      id: key,
      knownAgents: Object.keys(opts.config.agents),
      existing: 'find',
      starter: starterFor(client, started),
      admit: (spec) => opts.budget.startWork(caller, spec.nodes.length, `a graph of ${spec.nodes.length} nodes`),
    });
    opts.logger.info({ graphId: id, caller }, 'graph started over Nexus');
    return (started.result as TemporalOperationResult<GraphRecord> | undefined) ?? TemporalOperationResult.sync(await graphs.result(id));
  };

  const canceled = 'the Nexus operation that started it was canceled';

  return nexus.serviceHandler(batonNexusService, {
    delegate: new TemporalOperationHandler<DelegateInput, DelegationRecord>({
      start: (ctx, client, input) => run(() => delegate(ctx, client, input)),
      cancelWorkflowRun: (_ctx, { workflowId }) => run(() => cancelForOperation(getClient(), workflowId, 'delegation', canceled)),
    }),
    runGraph: new TemporalOperationHandler<RunGraphInput, GraphRecord>({
      start: (ctx, client, input) => run(() => runGraph(ctx, client, input)),
      cancelWorkflowRun: (_ctx, { workflowId }) => run(() => cancelForOperation(getClient(), workflowId, 'graph', canceled)),
    }),
    answer: (ctx, raw) =>
      run(async () => {
        const input = parse(AnswerInputSchema, raw, 'answer input');
        return clientsAs(await callerOf(ctx)).baton.answer(delegationId(input.delegation), input.requestId, partsOf(input), {
          updateId: updateIdOf('answer', ctx),
        });
      }),
    authorize: (ctx, raw) =>
      run(async () => {
        const input = parse(AuthorizeInputSchema, raw, 'authorize input');
        return clientsAs(await callerOf(ctx)).baton.authorize(delegationId(input.delegation), input.requestId, input.credential, {
          updateId: updateIdOf('authorize', ctx),
        });
      }),
    review: (ctx, raw) =>
      run(async () => {
        const input = parse(ReviewInputSchema, raw, 'review input');
        return clientsAs(await callerOf(ctx)).baton.review(delegationId(input.delegation), input.requestId, input.decision, input.reason, {
          updateId: updateIdOf('review', ctx),
        });
      }),
    cancel: (ctx, raw) =>
      run(async () => {
        const input = parse(CancelInputSchema, raw, 'cancel input');
        return clientsAs(await callerOf(ctx)).baton.cancel(delegationId(input.delegation), input.reason, {
          updateId: updateIdOf('cancel', ctx),
        });
      }),
    status: (ctx, raw) =>
      run(async () => {
        const input = parse(StatusInputSchema, raw, 'status input');
        const caller = await callerOf(ctx);
        const { baton } = clientsAs(caller);
        const id = delegationId(input.delegation);
        return input.waitFor
          ? waitedStatus(baton, id, { ...input, waitFor: input.waitFor }, ctx, opts.budget.openStream(caller))
          : baton.show(id);
      }),
  });
}
