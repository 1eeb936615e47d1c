/**
 * `baton upgrade-check`: before workers move to this release, lists the delegations and graphs still
 * running that a release older than the support window started. This release refuses to run them
 * (each one's workflow task fails with the reason); they finish on a worker of the older release.
 */
import { Client } from '@temporalio/client';
import { loadConfig } from '../../config/load';
import { connectTemporalClient } from '../../runtime/connect';
import { temporalCall } from '../../client/temporal-call';
import { BATON_VERSION } from '../../shared/baton-version';
import { SA_BATON_VERSION } from '../../shared/search-attributes';
import { inSupportWindow, OLDEST_SUPPORTED } from '../../shared/support-window';
import { printJson } from '../output';

/** The workflow types that carry Baton's patches, and so a support window. */
const WINDOWED_TYPES = ['delegationWorkflow', 'taskGraphWorkflow'];

/** How many it lists at most: enough to act on; the count says when there are more. */
const MAX_LISTED = 1_000;

export interface OutsideWindow {
  workflowId: string;
  type: string;
  startedBy: string;
  startTime: string;
}

export async function upgradeCheckCommand(opts: { json?: boolean; config?: string }): Promise<number> {
  const { config } = loadConfig(opts.config);
  const { namespace } = config.temporal;
  const connection = await connectTemporalClient(config.temporal);
  try {
    const client = new Client({ connection, namespace });
    const query = `ExecutionStatus = 'Running' AND WorkflowType IN (${WINDOWED_TYPES.map((t) => `'${t}'`).join(', ')})`;
    const outside: OutsideWindow[] = [];
    let running = 0;
    await temporalCall({ connection, namespace }, async () => {
      for await (const wf of client.workflow.list({ query, pageSize: 500 })) {
        running += 1;
        const startedBy = wf.typedSearchAttributes.get(SA_BATON_VERSION);
        if (startedBy === undefined || inSupportWindow(startedBy) || outside.length >= MAX_LISTED) continue;
        outside.push({ workflowId: wf.workflowId, type: wf.type, startedBy, startTime: wf.startTime.toISOString() });
      }
    });
    if (opts.json) printJson({ release: BATON_VERSION, oldestSupported: OLDEST_SUPPORTED, namespace, running, outside });
    else process.stdout.write(`${formatUpgradeCheck(outside, running, namespace)}\n`);
    // Non-zero while something must be drained first, so a deploy script can wait on it.
    return outside.length ? 1 : 0;
  } finally {
    await connection.close();
  }
}

export function formatUpgradeCheck(outside: OutsideWindow[], running: number, namespace: string): string {
  if (!outside.length) {
    return `namespace ${namespace}: ${running} running delegation(s) and graph(s), none started before Baton ${OLDEST_SUPPORTED}: Baton ${BATON_VERSION} workers can take them all`;
  }
  return [
    `namespace ${namespace}: ${outside.length} running workflow(s) were started before Baton ${OLDEST_SUPPORTED}; Baton ${BATON_VERSION} will not run them.`,
    ...outside.map((w) => `  ${w.workflowId}  ${w.type}  started by ${w.startedBy} at ${w.startTime}`),
    `Keep a ${OLDEST_SUPPORTED} worker running until they end (or cancel them), then upgrade; see docs/operations.md (Upgrades).`,
  ].join('\n');
}
