/**
 * The typed client for applications: start a delegation, wait for it, read its record.
 */
import { randomUUID } from 'node:crypto';
import { Client, WorkflowNotFoundError, type ConnectionLike } from '@temporalio/client';
import type { Part } from '../shared/a2a-types';
import { DelegationInputSchema, type DelegationRecord } from '../shared/delegation-types';
import { DELEGATION_ID_PREFIX } from '../shared/ids';
import { describeIssues } from '../config/load';
import type { delegationWorkflow } from '../../workflows/delegation';
import { statusQuery } from '../../workflows/messages';

/** Who is calling. Every delegation has a tenant and an owner. */
export interface Caller {
  tenant: string;
  user: string;
}

export interface StartDelegation {
  agent: string;
  parts: Part[];
  policy?: string;
  /** Workflow id; default `dlg-<uuid>`. Starting twice with one id is refused. */
  id?: string;
  contextId?: string;
  referenceTaskIds?: string[];
}

export class InvalidRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidRequestError';
  }
}

export class DelegationNotFoundError extends Error {
  constructor(id: string) {
    super(`no delegation with id ${id}`);
    this.name = 'DelegationNotFoundError';
  }
}

export class BatonClient {
  readonly client: Client;

  constructor(
    connection: ConnectionLike,
    private readonly opts: { namespace: string; taskQueue: string; caller: Caller },
  ) {
    this.client = new Client({ connection, namespace: opts.namespace });
  }

  /** Starts a delegation and returns its id. */
  async start(req: StartDelegation): Promise<string> {
    const parsed = DelegationInputSchema.safeParse({
      agent: req.agent,
      parts: req.parts,
      tenant: this.opts.caller.tenant,
      owner: this.opts.caller.user,
      ...(req.policy ? { policy: req.policy } : {}),
      ...(req.contextId ? { contextId: req.contextId } : {}),
      ...(req.referenceTaskIds?.length ? { referenceTaskIds: req.referenceTaskIds } : {}),
    });
    if (!parsed.success) throw new InvalidRequestError(`invalid delegation: ${describeIssues(parsed.error).join('; ')}`);
    const id = req.id ?? `${DELEGATION_ID_PREFIX}${randomUUID()}`;
    await this.client.workflow.start<typeof delegationWorkflow>('delegationWorkflow', {
      workflowId: id,
      taskQueue: this.opts.taskQueue,
      args: [parsed.data],
      staticSummary: `Delegation to ${parsed.data.agent}`,
    });
    return id;
  }

  /** Waits until the delegation settles and returns its record. */
  async result(id: string): Promise<DelegationRecord> {
    try {
      return await this.client.workflow.getHandle<typeof delegationWorkflow>(id).result();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new DelegationNotFoundError(id);
      throw err;
    }
  }

  /** The record now: the result once settled, the live status while it runs. */
  async show(id: string): Promise<DelegationRecord> {
    const handle = this.client.workflow.getHandle<typeof delegationWorkflow>(id);
    try {
      const description = await handle.describe();
      if (description.status.name === 'COMPLETED') return await handle.result();
      return await handle.query(statusQuery);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new DelegationNotFoundError(id);
      throw err;
    }
  }
}
