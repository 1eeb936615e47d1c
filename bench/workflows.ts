/**
 * The bare workflow the benchmark compares Baton with: one activity that makes the same call. This
 * file imports nothing of Baton's, so the bare worker's bundle evaluates only this for each workflow.
 */
import { proxyActivities } from '@temporalio/workflow';
import type * as activities from './activities';

const { callAgent } = proxyActivities<typeof activities>({ startToCloseTimeout: '30s', retry: { maximumAttempts: 3 } });

export async function bareCallWorkflow(input: { baseUrl: string; text: string; messageId: string }): Promise<string> {
  return callAgent(input);
}
