/**
 * `baton ls`: the caller's delegations, newest first, filtered through search attributes.
 */
import { connectClient } from '../context';
import { printJson } from '../output';
import { UsageError } from '../usage-error';

export interface ListOptions {
  status?: string;
  agent?: string;
  outcome?: string;
  limit: number;
  json?: boolean;
  config?: string;
}

const quoted = (value: string): string => {
  if (!/^[A-Za-z0-9_.:@/-]+$/.test(value)) throw new UsageError(`filter value ${JSON.stringify(value)} may use letters, digits and . _ : @ / - only`);
  return `'${value}'`;
};

export async function listCommand(opts: ListOptions): Promise<number> {
  const { loaded, baton, close } = await connectClient(opts.config);
  try {
    // contextId is never a permission: the tenant filter comes from the caller, not from the command line.
    const clauses = [`WorkflowType = 'delegationWorkflow'`, `BatonTenant = ${quoted(loaded.config.caller.tenant)}`];
    if (opts.status) clauses.push(`BatonStatus = ${quoted(opts.status.toUpperCase())}`);
    if (opts.agent) clauses.push(`BatonAgent = ${quoted(opts.agent)}`);
    if (opts.outcome) clauses.push(`BatonOutcome = ${quoted(opts.outcome.toUpperCase())}`);
    const rows: { id: string; agent?: string; status?: string; outcome?: string; remoteTaskId?: string; started: string }[] = [];
    for await (const wf of baton.client.workflow.list({ query: clauses.join(' AND ') })) {
      const sa = wf.searchAttributes as Record<string, unknown[] | undefined>;
      rows.push({
        id: wf.workflowId,
        agent: sa.BatonAgent?.[0] as string | undefined,
        status: sa.BatonStatus?.[0] as string | undefined,
        outcome: sa.BatonOutcome?.[0] as string | undefined,
        remoteTaskId: sa.BatonRemoteTaskId?.[0] as string | undefined,
        started: wf.startTime.toISOString(),
      });
      if (rows.length >= opts.limit) break;
    }
    if (opts.json) printJson(rows);
    else if (!rows.length) process.stdout.write('no delegations match\n');
    else for (const r of rows) process.stdout.write(`${r.id.padEnd(44)} ${(r.agent ?? '').padEnd(14)} ${(r.status ?? '').padEnd(15)} ${(r.outcome ?? '').padEnd(16)} ${r.started}\n`);
    return 0;
  } finally {
    await close();
  }
}
