/**
 * `baton upgrade-check` lists the running delegations a release before the support window started
 * (read from visibility: no worker needed), exits 1 while there are any, and 0 once they are gone.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { SA_BATON_VERSION, SA_TENANT } from '../../src/shared/search-attributes';
import type { DelegationWorkflow } from '../../workflows/messages';
import { runCli, userEnv } from '../../infra/cli-process';
import { testServer } from '../helpers/temporal';

it('lists what a release before the window started, and only that', async () => {
  const { address, namespace } = await testServer();
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace });
  // No worker polls this queue: the workflows stay running, as they would before an upgrade.
  const taskQueue = `upgrade-check-${process.pid}`;
  const start = (version: string) =>
    client.workflow.start<DelegationWorkflow>('delegationWorkflow', {
      taskQueue,
      workflowId: `dlg-upgrade-check-${version}-${process.pid}-${Date.now()}`,
      args: [{ agent: 'supplier-qa', parts: [{ text: 'old work' }], tenant: 'acme', owner: 'ops-1' }],
      typedSearchAttributes: [
        { key: SA_TENANT, value: 'acme' },
        { key: SA_BATON_VERSION, value: version },
      ],
    });
  const old = await start('0.8.0');
  const current = await start('0.9.0');
  const config = join(mkdtempSync(join(tmpdir(), 'baton-upgrade-check-')), 'baton.config.yaml');
  writeFileSync(config, `temporal: { address: "${address}", namespace: "${namespace}" }\n`);
  const env = userEnv({ BATON_CONFIG: config });
  const visible = async (query: string, n: number) => {
    while ((await client.workflow.count(query)).count !== n) await new Promise((r) => setTimeout(r, 50)); // visibility has no event to await
  };
  try {
    await visible(`WorkflowId = '${old.workflowId}' AND ExecutionStatus = 'Running'`, 1);
    await visible(`WorkflowId = '${current.workflowId}' AND ExecutionStatus = 'Running'`, 1);
    const listed = await runCli(['upgrade-check', '--json'], env);
    assert.equal(listed.code, 1, listed.stderr);
    const report = JSON.parse(listed.stdout) as { oldestSupported: string; outside: { workflowId: string; startedBy: string }[] };
    assert.equal(report.oldestSupported, '0.9.0');
    assert.deepEqual(
      report.outside.filter((w) => w.workflowId.startsWith('dlg-upgrade-check-')).map((w) => [w.workflowId, w.startedBy]),
      [[old.workflowId, '0.8.0']],
    );
    const text = await runCli(['upgrade-check'], env);
    assert.match(text.stdout, new RegExp(`will not run them\\.\\n {2}${old.workflowId} {2}delegationWorkflow {2}started by 0\\.8\\.0`));

    await old.terminate('drained for the test');
    await visible(`WorkflowId = '${old.workflowId}' AND ExecutionStatus = 'Running'`, 0);
    const clear = await runCli(['upgrade-check'], env);
    assert.equal(clear.code, 0, clear.stdout);
    assert.match(clear.stdout, /none started before Baton 0\.9\.0: Baton \d+\.\d+\.\d+ workers can take them all/);
  } finally {
    await current.terminate('test done').catch(() => undefined);
    await old.terminate('test done').catch(() => undefined);
    await connection.close();
  }
});
