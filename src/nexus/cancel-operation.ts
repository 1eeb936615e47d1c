/**
 * A Nexus caller cancels its `delegate` (or `runGraph`) operation: the server, not the caller, names
 * the workflow, and a cancel request carries no caller link. Baton cancels it as its own owner, with the
 * same Update `baton cancel` sends (the remote task is canceled and the record keeps its real final
 * state), and returns once the workflow accepted it: the caller hears the outcome through the
 * operation's completion, not this request.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { cancelGraphUpdate, cancelUpdate, graphStatusQuery, statusQuery } from '../../workflows/messages';

/** The Update id of an operation's cancel: a cancel request the server retries is one cancel. */
const CANCEL_UPDATE_ID = 'nexus-operation-cancel';

export async function cancelForOperation(client: Client, workflowId: string, kind: 'delegation' | 'graph', reason: string): Promise<void> {
  const handle = client.workflow.getHandle(workflowId);
  try {
    if ((await handle.describe()).status.name !== 'RUNNING') return;
    const { tenant, owner } = kind === 'delegation' ? await handle.query(statusQuery) : await handle.query(graphStatusQuery, { limit: 1 });
    const args = [{ caller: { tenant, user: owner }, reason }] as const;
    await (kind === 'delegation'
      ? handle.startUpdate(cancelUpdate, { args: [...args], waitForStage: 'ACCEPTED', updateId: CANCEL_UPDATE_ID })
      : handle.startUpdate(cancelGraphUpdate, { args: [...args], waitForStage: 'ACCEPTED', updateId: CANCEL_UPDATE_ID }));
  } catch (err) {
    // It ended (or settled) between the describe and the Update: nothing is left to cancel.
    if (err instanceof WorkflowNotFoundError || err instanceof WorkflowUpdateFailedError) return;
    throw err;
  }
}
