/**
 * How a client starts a workflow: Temporal's `workflow.start` by default; a Nexus operation starts its
 * own through `@temporalio/nexus`, which attaches the caller's completion callback, request id and
 * links to the start (so the caller hears when it ends, and a retried start is the same one).
 */
import type { Workflow, WorkflowStartOptions } from '@temporalio/client';

export type WorkflowStarter = <T extends Workflow>(workflowType: string, options: WorkflowStartOptions<T>) => Promise<unknown>;
