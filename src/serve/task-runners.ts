/**
 * What runs a served task: one delegation (`delegate`), or a task graph (`graph`). Each starts the
 * workflow under the task's id, reads it as a ServedState, and cancels it; the served agent does the
 * protocol around them. Every read goes through the clients' tenant checks.
 */
import type { BatonClient } from '../client/baton-client';
import type { GraphClient } from '../client/graph-client';
import type { ServedAgentConfig, ServedNode } from '../config/schema';
import type { Part } from '../shared/a2a-types';
import type { Caller, DelegationRecord } from '../shared/delegation-types';
import type { GraphSpecInput } from '../shared/graph-types';
import { readRecord } from '../shared/record-version';
import { statusQuery } from '../../workflows/messages';
import { delegationState, endNodes, graphState, type ServedState } from './task-view';

export interface TaskRunner {
  /** The workflow type a task of this service is. */
  readonly workflowType: 'delegationWorkflow' | 'taskGraphWorkflow';
  /** Starts the task's workflow under `id`; an id that exists already is the same task (a retried message). */
  start(caller: Caller, id: string, parts: Part[], served: { service: string; contextId: string }): Promise<void>;
  /** The task's state and, once COMPLETED, the delegations whose artifacts are its result. */
  read(caller: Caller, id: string, closed: boolean): Promise<{ state: ServedState; results: DelegationRecord[] }>;
  cancel(caller: Caller, id: string): Promise<void>;
}

export class DelegationRunner implements TaskRunner {
  readonly workflowType = 'delegationWorkflow';

  constructor(
    private readonly baton: BatonClient,
    private readonly delegate: NonNullable<ServedAgentConfig['delegate']>,
  ) {}

  async start(caller: Caller, id: string, parts: Part[], served: { service: string; contextId: string }): Promise<void> {
    const d = this.delegate;
    await this.baton.as(caller).start({
      id,
      agent: d.agent,
      parts,
      ...(d.policy ? { policy: d.policy } : {}),
      ...(d.contract ? { contract: d.contract } : {}),
      served,
      reuseExisting: true,
    });
  }

  async read(_caller: Caller, id: string, closed: boolean): Promise<{ state: ServedState; results: DelegationRecord[] }> {
    const handle = this.baton.client.workflow.getHandle(id);
    // A closed delegation's record is its result; a running one answers the status Query.
    const record = readRecord(closed ? await handle.result() : await handle.query(statusQuery));
    return { state: delegationState(record), results: record.outcome?.kind === 'ACCEPTED' ? [record] : [] };
  }

  async cancel(caller: Caller, id: string): Promise<void> {
    await this.baton.as(caller).cancel(id, 'canceled by the A2A caller');
  }
}

/** The graph spec of one task: the served graph's nodes, the caller's parts where a node takes them. */
export function servedGraphSpec(graph: NonNullable<ServedAgentConfig['graph']>, parts: Part[]): GraphSpecInput {
  const request = (n: ServedNode): Part[] => [...(n.text ? [{ text: n.text }] : (n.parts ?? [])), ...(n.withRequest ? parts : [])];
  return {
    failurePolicy: graph.failurePolicy,
    concurrency: graph.concurrency,
    nodes: graph.nodes.map((n) => ({
      id: n.id,
      agent: n.agent,
      parts: request(n),
      dependsOn: n.dependsOn,
      ...(n.refines ? { refines: n.refines } : {}),
      ...(n.acceptance ? { acceptance: n.acceptance } : {}),
      ...(n.contract ? { contract: n.contract } : {}),
    })),
  };
}

const WAITING = new Set(['WAITING_INPUT', 'WAITING_AUTH']);

export class GraphRunner implements TaskRunner {
  readonly workflowType = 'taskGraphWorkflow';

  constructor(
    private readonly baton: BatonClient,
    private readonly graphs: GraphClient,
    private readonly graph: NonNullable<ServedAgentConfig['graph']>,
  ) {}

  async start(caller: Caller, id: string, parts: Part[], served: { service: string; contextId: string }): Promise<void> {
    await this.graphs.as(caller).start(servedGraphSpec(this.graph, parts), { id, served, reuseExisting: true });
  }

  async read(caller: Caller, id: string): Promise<{ state: ServedState; results: DelegationRecord[] }> {
    const graph = await this.graphs.as(caller).show(id, { limit: 100 });
    const baton = this.baton.as(caller);
    if (graph.status === 'SETTLED') {
      const results = graph.outcome?.kind === 'ACCEPTED' ? await Promise.all(endNodes(graph).map((d) => baton.show(d))) : [];
      return { state: graphState(graph), results: results.filter((r) => r.outcome?.kind === 'ACCEPTED') };
    }
    // A node that waits makes the task wait: its question is the task's (the first such node, in spec order).
    const asking = graph.nodes.find((n) => n.status === 'RUNNING' && WAITING.has(n.delegation?.status ?? ''));
    const waiting = asking ? await baton.show(asking.delegationId) : undefined;
    return { state: graphState(graph, waiting), results: [] };
  }

  async cancel(caller: Caller, id: string): Promise<void> {
    await this.graphs.as(caller).cancel(id, 'canceled by the A2A caller');
  }
}
